#include "app/sweep/metrics.h"

#include <algorithm>

#include "app/sweep/stats.h"

namespace goodsim::app::sweep {

MetricValues metric_values(const output::PolicyResult& p) {
  MetricValues v = {p.goodput,          p.ettr,
          p.goodput,          p.uptime,
          p.downtime_s,       static_cast<double>(p.outages),
          p.longest_outage_s, static_cast<double>(p.failures),
          p.tokens,           static_cast<double>(p.steps),
          p.final_loss,       p.time_to_target_s};
  v[kWanBytes] = p.wan_bytes;
  if (p.cost) {
    v[kWanBytes + 1] = p.cost->wan;
    v[kCost] = p.cost->total;
    v[kCost + 1] = p.cost->per_billion_tokens;
    v[kCost + 2] = p.cost->to_target;
    for (size_t c = 0; c < p.cost->by_category.size(); ++c) v[kCost + 3 + c] = p.cost->by_category[c].second;
  }
  return v;
}

std::optional<size_t> metric_index(std::string_view name) {
  for (size_t i = 0; i < kMetrics.size(); ++i) {
    if (kMetrics[i].name == name) return i;
  }
  return std::nullopt;
}

std::pair<double, double> ci_bounds(const Estimate& e, size_t metric, bool difference) {
  const MetricInfo& m = kMetrics.at(metric);
  const double lo = difference ? m.lowest - m.highest : m.lowest;
  const double hi = difference ? m.highest - m.lowest : m.highest;
  return {std::clamp(e.mean - e.ci95, lo, hi), std::clamp(e.mean + e.ci95, lo, hi)};
}

std::string metric_names() {
  std::string out;
  for (const MetricInfo& m : kMetrics) out += (out.empty() ? "" : ", ") + std::string(m.name);
  return out;
}

}  // namespace goodsim::app::sweep
