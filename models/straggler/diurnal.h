// diurnal: a daily swing of the whole fleet's speed (temperature, power
// capping, shared-infrastructure load).
//
// Continuous law, with t the simulated time (t = 0 is midnight):
//   factor(t) = 1 + amplitude * (1 + cos(2 pi (t - peak) / period)) / 2
// so steps are nominal at peak +- period/2 and `amplitude` slower at `peak`;
// amplitude is the peak-to-trough swing (Llama 3 reports 1-2%).
//
// Applied as one fleet-wide kScale slowdown, updated every `resolution`: over
// [k r, (k+1) r) the factor is the exact average of factor(t) over that
// interval, so the step time integrated over each interval matches the
// continuous law. One event per resolution step, O(1) each.
#pragma once

#include <string>

#include "models/configured_model.h"
#include "models/straggler/straggler_model.h"
#include "sim/cluster/slowdown_state.h"
#include "sim/scenario/reader.h"

namespace goodsim::models::straggler {

struct DiurnalConfig {
  double amplitude = 0.02;                          // peak-to-trough swing, >= 0
  core::Duration period = core::Duration::hours(24);
  core::Duration resolution = core::Duration::minutes(15);  // update step, <= period
  core::Duration peak = core::Duration::hours(14);  // slowest time within a period

  // The model's expected_use (environment_model.h) with these parameters.
  ResourceUse expected_use(const cluster::Layout& layout, core::Duration horizon) const;
  static DiurnalConfig from_json(scenario::ObjectReader& r);
  // factor(t) above.
  double factor_at(core::SimTime t) const;
  // The average of factor(t) over [from, to). REQUIRES: from < to.
  double average(core::SimTime from, core::SimTime to) const;
};

class Diurnal : public ConfiguredModel<StragglerModel, DiurnalConfig> {
 public:
  using ConfiguredModel::ConfiguredModel;

  void start(RunContext& ctx) override;

 private:
  void on_step();

  cluster::SlowdownId id_;
  core::HandlerId step_handler_ = 0;
};

}  // namespace goodsim::models::straggler
