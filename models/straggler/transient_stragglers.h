// transient_stragglers: chips (or hosts, slices) that run slow for a while.
//
// Each unit alternates between nominal speed, for an exponentially distributed
// time of mean `mtbe`, and a slowdown episode of length `duration` (any
// distribution) during which it is `factor` times slower (a factor law, see
// straggler_params.h). Episodes are slow members (SlowdownMode::kSlowest): a
// slice runs at the pace of its slowest chip. Episodes ignore failures: a unit
// may be slow while down, which matters again only once it is back up.
//
// Sampled by superposition with thinning, like exponential_failures: one clock
// for the fleet with mean gap mtbe / units; each arrival picks a unit
// uniformly and is discarded if that unit is already in an episode of this
// model. By memorylessness this is exactly the per-unit alternating process, at
// O(1) per arrival (plus the slowdown update), one pending clock plus one
// pending end per active episode, and one bit of state per unit.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "models/straggler/straggler_model.h"
#include "models/stream_model.h"
#include "models/straggler/straggler_params.h"

namespace goodsim::models::straggler {

struct TransientStragglersConfig {
  core::Duration mtbe;           // mean nominal-speed time of one unit between episodes
  core::Distribution duration;   // episode length, seconds
  FactorLaw factor;              // slowdown during an episode
  cluster::Domain domain = cluster::Domain::kChip;  // chip, host or slice

  static TransientStragglersConfig from_json(scenario::ObjectReader& r);
};

class TransientStragglers : public StreamModel<StragglerModel> {
 public:
  TransientStragglers(TransientStragglersConfig config, std::string stream);

  void start(RunContext& ctx) override;
  ResourceUse expected_use(const cluster::Layout& layout, core::Duration horizon) const override;
  // Episodes begun so far.
  uint64_t episodes() const { return episodes_; }

 private:
  void schedule_next_arrival();
  void on_arrival();
  void on_end(uint32_t unit, uint64_t slowdown);
  bool in_episode(uint32_t unit) const { return (busy_[unit / 64] >> (unit % 64)) & 1; }
  void set_episode(uint32_t unit, bool on);

  TransientStragglersConfig config_;
  uint64_t units_ = 0;
  double mean_gap_s_ = 0;
  std::vector<uint64_t> busy_;  // one bit per unit: in an episode of this model
  core::HandlerId arrival_handler_ = 0;
  core::HandlerId end_handler_ = 0;
  uint64_t episodes_ = 0;
};

}  // namespace goodsim::models::straggler
