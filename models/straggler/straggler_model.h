// Interface of every straggler model (models/straggler/).
//
// A straggler model turns its own named RNG stream into slowdowns of chips,
// slices or the whole fleet through the cluster's slowdown state; like a
// failure injector it never reads policy state, so every policy of a run faces
// the same straggler history.
#pragma once

#include "models/resource_use.h"
#include "models/run_context.h"
#include "sim/cluster/layout.h"
#include "sim/core/time.h"

namespace goodsim::models::straggler {

class StragglerModel {
 public:
  virtual ~StragglerModel() = default;
  // Applies initial slowdowns and schedules the first events. Called once at
  // t = 0, after the failure injectors started.
  virtual void start(RunContext& ctx) = 0;
  // Expected events (and slowdowns applied at start) over `horizon` on `layout`, and the
  // memory of the model's own tables. Called before start(), without running.
  virtual ResourceUse expected_use(const cluster::Layout& layout,
                                   core::Duration horizon) const = 0;
};

}  // namespace goodsim::models::straggler
