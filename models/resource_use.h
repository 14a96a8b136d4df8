// What one model is expected to cost in a run, known before the run starts.
//
// Failure injectors and straggler models report it (expected_use) so that
// `goodsim run` and `goodsim validate` can estimate a scenario's events and
// memory from its rates, horizon and layout (models/resource_estimate.h), and
// refuse a run that would exceed the limits before anything is allocated.
#pragma once

namespace goodsim::models {

struct ResourceUse {
  double events = 0;  // expected events executed over the horizon (a mean, not a bound)
  double bytes = 0;   // memory of the model's own per-chip / per-unit tables

  ResourceUse& operator+=(const ResourceUse& o) {
    events += o.events;
    bytes += o.bytes;
    return *this;
  }
};

}  // namespace goodsim::models
