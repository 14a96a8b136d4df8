// Benchmarks (run by `make bench`, never by the tests).
#pragma once

namespace goodsim::bench {

// The classic hold model through goodsim's engine and through a bare
// std::priority_queue loop; prints events/s and the ratio per size.
int hold_model();
// Build time and peak memory of a 1.5M-chip cluster.
int cluster_build();
// Exponential and Weibull failure injection over 1.2M chips for 30 days.
int inject();

// A 5 x 2 grid x 10 seeds sweep with 1 and 2 jobs: speed-up and memory per run.
int sweep();

// scenarios/paper-1.2m.json (1.2M chips, 7 days, all six policies): wall time,
// events, events/s and peak memory.
int paper();

// goodsim bandwidth on scenarios/streaming-bandwidth.json, 5 policies x 5
// targets: min and median wall time of 3 runs.
int bandwidth();

}  // namespace goodsim::bench
