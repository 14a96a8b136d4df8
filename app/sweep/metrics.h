// The per-policy figures a sweep or a check compares: the numeric fields of a
// policy's summary (docs/architecture.md; format in sim/output/summary.h), in a fixed order.
#pragma once

#include <array>
#include <cstddef>
#include <limits>
#include <utility>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/output/run_result.h"

namespace goodsim::app::sweep {

struct Estimate;  // stats.h

// Which way is better for a metric; kNone for figures that describe the
// input rather than the policy (failures: every policy sees the same ones).
enum class Better { kHigher, kLower, kNone };

inline constexpr double kUnbounded = std::numeric_limits<double>::infinity();

struct MetricInfo {
  std::string_view name;
  Better better;
  double lowest;   // the metric's range: no value (nor CI bound) lies outside it
  double highest;
};

inline constexpr size_t kMetricCount = 25;
inline constexpr std::array<MetricInfo, kMetricCount> kMetrics = {{
    {"goodput", Better::kHigher, 0, 1},
    {"ettr", Better::kHigher, 0, 1},
    {"fleet_goodput", Better::kHigher, 0, 1},
    {"uptime", Better::kHigher, 0, 1},
    {"downtime_s", Better::kLower, 0, kUnbounded},
    {"outages", Better::kLower, 0, kUnbounded},
    {"longest_outage_s", Better::kLower, 0, kUnbounded},
    {"failures", Better::kNone, 0, kUnbounded},
    {"tokens", Better::kHigher, 0, kUnbounded},
    {"steps", Better::kHigher, 0, kUnbounded},
    {"final_loss", Better::kLower, 0, kUnbounded},
    {"time_to_target_s", Better::kLower, 0, kUnbounded},
    // With a "cost" section (docs/metrics.md, "Cost"); empty without one.
    {"cost", Better::kLower, 0, kUnbounded},
    {"cost_per_billion_tokens", Better::kLower, 0, kUnbounded},
    {"cost_to_target", Better::kLower, 0, kUnbounded},
    {"cost_productive", Better::kNone, 0, kUnbounded},
    {"cost_down", Better::kLower, 0, kUnbounded},
    {"cost_idle", Better::kLower, 0, kUnbounded},
    {"cost_reconfigure", Better::kLower, 0, kUnbounded},
    {"cost_checkpoint", Better::kLower, 0, kUnbounded},
    {"cost_lost_work", Better::kLower, 0, kUnbounded},
    {"cost_straggler_wait", Better::kLower, 0, kUnbounded},
    {"cost_sync_wait", Better::kLower, 0, kUnbounded},
    // Bytes sent between sites (docs/metrics.md, "WAN traffic"), and their price.
    {"wan_bytes", Better::kLower, 0, kUnbounded},
    {"cost_wan", Better::kLower, 0, kUnbounded},
}};
inline constexpr size_t kGoodput = 0;
inline constexpr size_t kEttr = 1;
inline constexpr size_t kUptime = 3;
inline constexpr size_t kCost = 12;  // then cost_per_billion_tokens, cost_to_target, by category
inline constexpr size_t kWanBytes = 23;  // then cost_wan

// One value per metric, in kMetrics order; empty where the run has none
// (final_loss without a loss model, time_to_target_s when never reached).
using MetricValues = std::array<std::optional<double>, kMetricCount>;

MetricValues metric_values(const output::PolicyResult& p);

// Index of metric `name` in kMetrics, or nullopt.
std::optional<size_t> metric_index(std::string_view name);

// The 95% CI [mean - ci95, mean + ci95] of metric `metric`, clamped into
// the metric's range (of a difference of two values when `difference`:
// [lowest - highest, highest - lowest]): a t interval around a mean near a
// bound would otherwise cross it (a negative goodput). REQUIRES: e.n >= 2.
std::pair<double, double> ci_bounds(const Estimate& e, size_t metric, bool difference);

// "goodput, uptime, ..." for messages.
std::string metric_names();

}  // namespace goodsim::app::sweep
