// exponential_failures: every chip fails independently with exponentially
// distributed lifetimes (mean `mtbf` of up-time), and is repaired after a fixed
// `repair_time`.
//
// Sampled by superposition with thinning: one clock for the whole fleet at
// rate chips / mtbf; each arrival picks a chip uniformly; if that chip is
// already down (from this or any other outage), the arrival is discarded.
// Because lifetimes are memoryless this is exactly a per-chip Poisson process
// of rate 1 / mtbf while the chip is up, at O(1) per arrival and one pending
// clock instead of one event per chip.
#pragma once

#include <optional>
#include <string>

#include "models/failure/failure_injector.h"
#include "sim/core/rng.h"
#include "sim/scenario/reader.h"

namespace goodsim::models::failure {

struct ExponentialFailuresConfig {
  core::Duration mtbf;         // mean up-time of one chip between failures
  core::Duration repair_time;  // fixed time until a failed chip is back

  static ExponentialFailuresConfig from_json(scenario::ObjectReader& r);
};

class ExponentialFailures : public FailureInjector {
 public:
  // `stream` names this injector's RNG stream (unique within a scenario).
  ExponentialFailures(ExponentialFailuresConfig config, std::string stream);

  void start(RunContext& ctx) override;
  uint64_t failures() const override { return failures_; }

 private:
  void schedule_next_arrival();
  void on_arrival();
  void on_repair(cluster::ChipId chip);

  ExponentialFailuresConfig config_;
  std::string stream_;
  RunContext* ctx_ = nullptr;
  std::optional<core::Rng> rng_;  // from the run's seed, in start()
  double mean_gap_s_ = 0;
  core::HandlerId arrival_handler_ = 0;
  core::HandlerId repair_handler_ = 0;
  uint64_t failures_ = 0;
};

}  // namespace goodsim::models::failure
