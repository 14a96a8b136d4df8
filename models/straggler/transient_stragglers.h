// transient_stragglers: chips (or hosts, slices, learners) that run slow for a
// while.
//
// Each unit alternates between nominal speed, for an exponentially distributed
// time of mean `mtbe`, and a slowdown episode of length `duration` (any
// distribution) during which it is `factor` times slower (a factor law, see
// straggler_params.h). Chip, host and slice episodes are slow members
// (SlowdownMode::kSlowest): a slice runs at the pace of its slowest chip, and
// a group of slices at its slowest slice. Episodes ignore failures: a unit may
// be slow while down, which matters again only once it is back up.
//
// Domain "learner" (with `learners` = M): the unit is learner k, the k-th
// contiguous near-equal share of the member slices (learner_share(), where
// decoupled_diloco and diloco put their learners), so the episodes depend on
// the layout only, never on a policy. An episode slows every slice of the
// share by the same factor, as a whole-slice speed (SlowdownMode::kScale,
// multiplying the slices' hardware generation): the learner as one
// synchronous job runs slower, and none of its slices waits for another.
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

#include "models/parse_context.h"
#include "models/configured_model.h"
#include "models/straggler/straggler_model.h"
#include "models/straggler/straggler_params.h"

namespace goodsim::models::straggler {

struct TransientStragglersConfig {
  core::Duration mtbe;           // mean nominal-speed time of one unit between episodes
  core::Distribution duration;   // episode length, seconds
  FactorLaw factor;              // slowdown during an episode
  cluster::Domain domain = cluster::Domain::kChip;  // chip, host or slice
  uint32_t learners = 0;  // domain "learner": M (> 0); 0 for chip, host or slice

  bool per_learner() const { return learners > 0; }
  // The model's expected_use (environment_model.h) with these parameters.
  ResourceUse expected_use(const cluster::Layout& layout, core::Duration horizon) const;
  static TransientStragglersConfig from_json(scenario::ObjectReader& r);
  // Also checks `learners` against the member slices when ctx.layout is known.
  static TransientStragglersConfig from_json(scenario::ObjectReader& r, const ParseContext& ctx);
};

class TransientStragglers : public ConfiguredModel<StragglerModel, TransientStragglersConfig> {
 public:
  using ConfiguredModel::ConfiguredModel;

  void start(RunContext& ctx) override;
  // Episodes begun so far.
  uint64_t episodes() const { return episodes_; }

 private:
  void schedule_next_arrival();
  void on_arrival();
  void on_end(uint32_t unit, uint64_t slowdown);
  // Slows (or, with factor 0, restores) every slice of learner `unit`.
  void slow_learner(uint32_t unit, double factor);
  const char* domain_label() const;
  bool in_episode(uint32_t unit) const { return (busy_[unit / 64] >> (unit % 64)) & 1; }
  void set_episode(uint32_t unit, bool on);

  uint64_t units_ = 0;
  double mean_gap_s_ = 0;
  std::vector<uint64_t> busy_;  // one bit per unit: in an episode of this model
  // Domain "learner": the slowdowns of each learner's episode under way.
  std::vector<std::vector<cluster::SlowdownId>> learner_slowdowns_;
  core::HandlerId arrival_handler_ = 0;
  core::HandlerId end_handler_ = 0;
  uint64_t episodes_ = 0;
};

}  // namespace goodsim::models::straggler
