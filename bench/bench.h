// Benchmarks (run by `make bench`, never by the tests).
#pragma once

namespace goodsim::bench {

// The classic hold model through goodsim's engine and through a bare
// std::priority_queue loop; prints events/s and the ratio per size.
int hold_model();
// Build time and peak memory of a 1.5M-chip cluster.
int cluster_build();

}  // namespace goodsim::bench
