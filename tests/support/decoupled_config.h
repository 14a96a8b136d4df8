// A decoupled_diloco config for hand-computed policy tests: 30 s elastic
// pauses, a 30 s rejoin overhead and 100 GB of state (a pull inside a site
// at 800 Gbit/s takes 1 s, so a rejoin costs 31 s), at least one slice.
#pragma once

#include <cstdint>

#include "models/policy/decoupled_diloco_config.h"

namespace goodsim::testing {

inline models::policy::DecoupledDilocoConfig decoupled_config(uint32_t learners, uint64_t h,
                                                              uint32_t p, uint64_t tau,
                                                              uint32_t quorum) {
  models::policy::DecoupledDilocoConfig c;
  c.learners = learners;
  c.inner_steps = h;
  c.fragments = p;
  c.overlap_steps = tau;
  c.quorum = quorum;
  c.state_bytes = 1e11;
  c.rejoin_overhead = core::Duration::seconds(30);
  c.elastic.downscale_time = core::Duration::seconds(30);
  c.elastic.upscale_time = core::Duration::seconds(30);
  c.elastic.restart_time = c.rejoin_overhead;
  c.elastic.min_slices = 1;
  return c;
}

}  // namespace goodsim::testing
