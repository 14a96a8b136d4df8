// The observations `goodsim calibrate` fits: what a fleet measured.
//
// An observation is the scenario under some overrides (e.g. another chip
// count), one policy of it (by name), a metric and the observed value with an
// optional uncertainty (one standard deviation of the observation; 0 or
// absent: unknown). Two file formats, chosen by the extension:
//
//   CSV (.csv): a header naming the columns set, policy, metric, value and,
//   optionally, uncertainty; `set` holds --set assignments separated by ';'
//   (may be empty). Blank lines and lines starting with '#' are skipped.
//     set,policy,metric,value,uncertainty
//     cluster.chips=150000,dp,goodput,0.72,0.01
//
//   JSON: {"observations": [{"set": ["cluster.chips=150000"], "policy": "dp",
//          "metric": "goodput", "value": 0.72, "uncertainty": 0.01}, ...]}
//
// Metrics: every per-policy metric of a sweep (app/sweep/metrics.h) and three
// more, failures_per_day (failures / horizon in days), mean_outage_s
// (downtime_s / outages, 0 without outages) and ettr (productive chip-time /
// the job's chips x time: goodput of the allocated chips, spares left out).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sim/output/run_result.h"

namespace goodsim::app::calibrate {

struct Observation {
  std::vector<std::string> sets;  // --set assignments applied to the scenario
  std::string policy;             // a policy name of the scenario
  std::string metric;
  double value = 0;
  double uncertainty = 0;  // >= 0; 0: unknown
  std::string where;       // "targets.csv:3" for messages
};

// Reads and checks the syntax of a target file (policies and overrides are
// checked against the scenario later). Throws scenario::ScenarioError naming
// the file and the line or JSON path: unreadable file, unknown column or key,
// unknown metric, a value that is not a finite number, a negative
// uncertainty, no observation at all.
std::vector<Observation> read_targets(const std::string& path);

// The --set assignments of a `set` field: split at ';', empty parts dropped.
std::vector<std::string> split_sets(const std::string& text);

// The metric names read_targets accepts ("goodput, uptime, ...").
std::string target_metric_names();

// The value of `metric` for one policy run; nullopt where the run has none
// (final_loss without a loss model, time_to_target_s never reached).
// REQUIRES: metric is one that read_targets accepts.
std::optional<double> metric_value(const output::PolicyResult& p, const std::string& metric,
                                   double horizon_s);

}  // namespace goodsim::app::calibrate
