// job_slowdown: one steady slowdown of the whole job, drawn once per run.
//
// ByteDance (OSDI 2025, 3,079 jobs of >= 128 GPUs) found a job's slowdown
// steady within the job rather than spiky (p90 step / job mean = 1.06), and
// mostly due to computation imbalance rather than one faulty worker. This
// model draws a single factor from its law at t = 0 and applies it to every
// slice for the whole run (SlowdownMode::kScale, fleet-wide, O(1)).
//
// Default law: factor = 1 + lognormal(median 0.084, sigma 0.91), fitted to
// ByteDance's figures: 42.5% of jobs > 10% slower than ideal; 10% of jobs
// waste >= 21.3% of their GPU-hours (factor >= 1.27); the fit gives a mean
// waste E[1 - 1/factor] of 10.3% (published 10.4%) and a 1% tail of 41%
// waste (published 45%).
//
// The draw depends only on (seed, stream), so every policy of a run sees the
// same factor.
#pragma once

#include <string>

#include "models/configured_model.h"
#include "models/straggler/straggler_model.h"
#include "models/straggler/straggler_params.h"

namespace goodsim::models::straggler {

struct JobSlowdownConfig {
  FactorLaw factor;

  // The ByteDance fit above.
  static FactorLaw bytedance_law();
  // The model's expected_use (environment_model.h) with these parameters.
  ResourceUse expected_use(const cluster::Layout& layout, core::Duration horizon) const;
  static JobSlowdownConfig from_json(scenario::ObjectReader& r);
};

class JobSlowdown : public ConfiguredModel<StragglerModel, JobSlowdownConfig> {
 public:
  using ConfiguredModel::ConfiguredModel;

  void start(RunContext& ctx) override;
  // The factor drawn by start() (1 before).
  double factor() const { return factor_; }

 private:
  double factor_ = 1.0;
};

}  // namespace goodsim::models::straggler
