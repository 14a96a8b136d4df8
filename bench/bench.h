// Benchmarks (run by `make bench`, never by the tests).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace goodsim::bench {

// A figure a benchmark measured, with its target when it has one.
struct Figure {
  std::string name;  // e.g. "ratio_median/1000000"
  double value = 0;
  std::string unit;
  std::optional<double> target;  // a lower bound when higher_is_better, else an upper bound
  bool higher_is_better = true;
  bool met() const { return !target || (higher_is_better ? value >= *target : value <= *target); }
};
using Figures = std::vector<Figure>;

// The classic hold model through goodsim's engine and through a bare
// std::priority_queue loop, on Google Benchmark, at 1e3 .. 1e7 pending events;
// prints events/s (CPU time) and the ratio per size, min and median of 3, and
// adds them to `figures`. Returns 1 when a median ratio is below its target.
int hold_model(Figures& figures);
// Build time and peak memory of a 1.5M-chip cluster.
int cluster_build();
// Exponential and Weibull failure injection over 1.2M chips for 30 days.
int inject();

// A 5 x 2 grid x 10 seeds sweep with 1 and 2 jobs: speed-up and memory per run.
int sweep();

// scenarios/paper-1.2m.json (1.2M chips, 7 days, all six policies): wall time,
// events, events/s and peak memory.
int paper();
// scenarios/paper-table1.json at 2.4M chips (7 days, all six policies).
int paper_table1();

// goodsim bandwidth on scenarios/streaming-bandwidth.json, 5 policies x 5
// targets: min and median wall time of 3 runs.
int bandwidth();

// goodsim calibrate: 3 knobs on 6 observations of scenarios/paper-table1.json
// (150k chips, 7 days) with 2 jobs: wall time and simulation count.
int calibrate();

}  // namespace goodsim::bench
