// What `goodsim diff` compares: the per-policy metrics of one side, read from a
// run directory (summary.json), a `run --seeds` directory (seed-*/summary.json),
// a sweep directory (results.csv) or a baseline file of `goodsim check`.
//
// A side is a list of rows, one per (group, policy): the group is the scenario's
// name for runs and baselines, the swept values ("cluster.chips=16384") for a
// sweep's grid point. A row holds, per metric of app/sweep/metrics.h, the values
// of the seeds it was run with (aligned with `seeds`), or, for a baseline metric
// recorded without per-seed values, only its mean, sd and n.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "app/sweep/metrics.h"
#include "app/sweep/stats.h"

namespace goodsim::app::diff {

struct MetricSample {
  std::vector<uint64_t> seeds;               // empty when only `recorded` is known
  std::vector<std::optional<double>> values;  // aligned with seeds
  std::optional<sweep::Estimate> recorded;   // a baseline's mean/sd/n without values

  bool present() const;                // any value at all
  sweep::Estimate estimate() const;    // of the present values, or `recorded`
};

struct SideRow {
  std::string group, policy;
  std::array<std::optional<MetricSample>, sweep::kMetricCount> metrics;  // nullopt: not recorded
};

struct Side {
  std::string path;
  std::string kind;      // "run", "runs" (run --seeds), "sweep" or "baseline"
  std::string version;   // goodsim that wrote it ("" when unknown)
  std::vector<SideRow> rows;
};

// Reads `path` as whichever of the four it is. Throws ScenarioError (exit 2) naming
// the file when it is none of them or is malformed.
Side load_side(const std::string& path);

}  // namespace goodsim::app::diff
