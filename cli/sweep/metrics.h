// The per-policy figures a sweep or a check compares: the numeric fields of a
// policy's summary (docs/architecture.md; format in sim/output/summary.h), in a fixed order.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/output/run_result.h"

namespace goodsim::cli::sweep {

// Which way is better for a metric; kNone for figures that describe the
// input rather than the policy (failures: every policy sees the same ones).
enum class Better { kHigher, kLower, kNone };

struct MetricInfo {
  std::string_view name;
  Better better;
};

inline constexpr size_t kMetricCount = 10;
inline constexpr std::array<MetricInfo, kMetricCount> kMetrics = {{
    {"goodput", Better::kHigher},
    {"uptime", Better::kHigher},
    {"downtime_s", Better::kLower},
    {"outages", Better::kLower},
    {"longest_outage_s", Better::kLower},
    {"failures", Better::kNone},
    {"tokens", Better::kHigher},
    {"steps", Better::kHigher},
    {"final_loss", Better::kLower},
    {"time_to_target_s", Better::kLower},
}};
inline constexpr size_t kGoodput = 0;
inline constexpr size_t kUptime = 1;

// One value per metric, in kMetrics order; empty where the run has none
// (final_loss without a loss model, time_to_target_s when never reached).
using MetricValues = std::array<std::optional<double>, kMetricCount>;

MetricValues metric_values(const output::PolicyResult& p);

// Index of metric `name` in kMetrics, or nullopt.
std::optional<size_t> metric_index(std::string_view name);

// "goodput, uptime, ..." for messages.
std::string metric_names();

}  // namespace goodsim::cli::sweep
