// The statistics files of a sweep and its console summary.
//
// DIR/summary.csv, one row per (grid point, policy, metric):
//   point, <one column per --vary path>, policy, type, metric, n, mean, sd,
//   ci95, ci95_lo, ci95_hi
// n counts the runs where the metric has a value (time_to_target_s only
// counts runs that reached the target); sd is the sample standard deviation;
// ci95 the Student-t 95% half-width of the mean, ci95_lo/hi = mean -/+ ci95.
// sd and the CI are empty when n < 2.
//
// DIR/paired.csv, one row per (grid point, policy other than the first,
// metric): the paired difference policy - baseline over the seeds where both
// have a value (same seed = same failure history):
//   point, <vary columns>, policy, baseline, metric, n, mean_diff, sd_diff,
//   ci95, ci95_lo, ci95_hi
// A CI that excludes 0 means the policies differ at the 95% level.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "app/sweep/point_results.h"
#include "app/sweep/results_file.h"

namespace goodsim::app::sweep {

// `results[p]` with `seeds[p]` seed indices, for each point of `table`.
struct SweepOutcome {
  const SweepTable& table;
  const std::vector<const PointResults*>& results;
  const std::vector<size_t>& seeds;
};

std::string summary_csv(const SweepOutcome& outcome);
std::string paired_csv(const SweepOutcome& outcome);

// A console table: per (point, policy) n, goodput mean +- ci95 and, for all
// but the first policy, the paired goodput difference to the first. At most
// `max_rows` rows, then a line pointing at summary.csv.
std::string console_table(const SweepOutcome& outcome, size_t max_rows);

}  // namespace goodsim::app::sweep
