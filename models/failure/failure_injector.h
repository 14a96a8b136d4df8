// Interface of every failure injector (models/failure/).
//
// An injector turns its own named RNG stream into outages of the cluster: it
// schedules events in the run's Simulation and calls ClusterState::fail() and
// repair(). It must never read policy state, so that the failure history
// depends only on (seed, scenario) — common random numbers across policies.
#pragma once

#include <cstdint>

#include "models/run_context.h"

namespace goodsim::models::failure {

class FailureInjector {
 public:
  virtual ~FailureInjector() = default;
  // Schedules the first events. Called once, at t = 0, before the run.
  virtual void start(RunContext& ctx) = 0;
  // Outages this injector began so far.
  virtual uint64_t failures() const = 0;
};

}  // namespace goodsim::models::failure
