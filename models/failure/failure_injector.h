// Interface of every failure injector (models/failure/).
//
// An injector turns its own named RNG stream into outages of the cluster: it
// schedules events in the run's Simulation and calls ClusterState::fail() and
// repair(). It must never read policy state, so that the failure history
// depends only on (seed, scenario) — common random numbers across policies.
#pragma once

#include <cstdint>

#include "models/resource_use.h"
#include "models/run_context.h"
#include "sim/cluster/layout.h"
#include "sim/core/time.h"

namespace goodsim::models::failure {

class FailureInjector {
 public:
  virtual ~FailureInjector() = default;
  // Schedules the first events. Called once, at t = 0, before the run.
  virtual void start(RunContext& ctx) = 0;
  // Outages this injector began so far.
  virtual uint64_t failures() const = 0;
  // Expected events (outage starts and ends, timers) over `horizon` on `layout`, and the
  // memory of the injector's own tables. Called before start(), without running.
  virtual ResourceUse expected_use(const cluster::Layout& layout,
                                   core::Duration horizon) const = 0;
};

}  // namespace goodsim::models::failure
