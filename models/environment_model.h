// Interface shared by the models of a run's environment: failure injectors
// (failure/failure_injector.h) and straggler models
// (straggler/straggler_model.h).
//
// Such a model turns its own named RNG stream into changes of the cluster —
// outages or slowdowns — by scheduling events in the run's Simulation. It must
// never read policy state, so that its history depends only on (seed,
// scenario): every policy of a run faces the same failures and stragglers
// (common random numbers across policies).
#pragma once

#include "models/resource_use.h"
#include "models/run_context.h"
#include "sim/cluster/layout.h"
#include "sim/core/time.h"

namespace goodsim::models {

class EnvironmentModel {
 public:
  virtual ~EnvironmentModel() = default;
  // Schedules the first events (and applies what holds from t = 0). Called
  // once, at t = 0, before the run; each kind says when among the others.
  virtual void start(RunContext& ctx) = 0;
  // Expected events over `horizon` on `layout` (with what start() applies),
  // and the memory of the model's own tables. Called before start(), without
  // running.
  virtual ResourceUse expected_use(const cluster::Layout& layout,
                                   core::Duration horizon) const = 0;
};

}  // namespace goodsim::models
