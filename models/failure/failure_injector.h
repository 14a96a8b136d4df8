// Interface of every failure injector (models/failure/).
//
// An injector is an EnvironmentModel (environment_model.h) whose events are
// outages: it calls ClusterState::fail() and repair(). Injectors start first,
// at t = 0, before the straggler models; expected_use() counts outage starts
// and ends and timers.
#pragma once

#include <cstdint>

#include "models/environment_model.h"

namespace goodsim::models::failure {

class FailureInjector : public EnvironmentModel {
 public:
  // Outages this injector began so far.
  virtual uint64_t failures() const = 0;
};

}  // namespace goodsim::models::failure
