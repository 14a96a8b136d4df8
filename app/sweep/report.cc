#include "app/sweep/report.h"

#include <fmt/format.h>

#include <cmath>

#include "app/sweep/csv.h"
#include "app/sweep/stats.h"
#include "app/table.h"

namespace goodsim::app::sweep {
namespace {

// The bounds are clamped into the metric's range (ci_bounds).
std::vector<std::string> estimate_fields(const Estimate& e, size_t metric, bool difference) {
  const bool ci = e.n >= 2;
  const auto [lo, hi] = ci ? ci_bounds(e, metric, difference) : std::pair{0.0, 0.0};
  return {fmt::format("{}", e.n),
          format_number(e.mean),
          format_number(e.sd),
          format_number(e.ci95),
          ci ? format_number(lo) : "",
          ci ? format_number(hi) : ""};
}

std::vector<std::string> point_head(const SweepTable& t, size_t p) {
  std::vector<std::string> f = {fmt::format("{}", p)};
  f.insert(f.end(), t.points[p].values.begin(), t.points[p].values.end());
  return f;
}

std::string header(const SweepTable& t, std::vector<std::string> middle,
                   std::vector<std::string> tail) {
  std::vector<std::string> h = {"point"};
  h.insert(h.end(), t.axis_paths.begin(), t.axis_paths.end());
  h.insert(h.end(), middle.begin(), middle.end());
  h.insert(h.end(), tail.begin(), tail.end());
  return csv_join(h) + "\n";
}

// "0.8037 +- 0.0021" (the CI part omitted when there is none).
std::string with_ci(const Estimate& e) {
  if (e.n == 0) return "-";
  if (e.n < 2) return fmt::format("{:.4f}", e.mean);
  return fmt::format("{:.4f} +- {:.4f}", e.mean, e.ci95);
}

// "+0.0123 +- 0.0040": a difference, with its sign.
std::string signed_with_ci(const Estimate& e) {
  return fmt::format("{}{}", e.n > 0 && e.mean >= 0 ? "+" : "", with_ci(e));
}

// One row per point, policy i >= first and metric: the point's columns, the
// policy, `second(point, i)` (its type, or its baseline), the metric's name and
// the fields of the estimate `estimate_of(p, i, m)` (differences when paired).
template <class Second, class EstimateOf>
std::string metric_rows(const SweepOutcome& o, size_t first, bool paired, Second second,
                        EstimateOf estimate_of) {
  std::string out;
  for (size_t p = 0; p < o.table.points.size(); ++p) {
    const SweepTable::Point& point = o.table.points[p];
    for (size_t i = first; i < point.policies.size(); ++i) {
      for (size_t m = 0; m < kMetricCount; ++m) {
        std::vector<std::string> f = point_head(o.table, p);
        f.insert(f.end(), {point.policies[i], second(point, i), std::string(kMetrics[m].name)});
        const auto stats = estimate_fields(estimate_of(p, i, m), m, paired);
        f.insert(f.end(), stats.begin(), stats.end());
        out += csv_join(f) + "\n";
      }
    }
  }
  return out;
}

}  // namespace

std::string summary_csv(const SweepOutcome& o) {
  return header(o.table, {"policy", "type", "metric"},
                {"n", "mean", "sd", "ci95", "ci95_lo", "ci95_hi"}) +
         metric_rows(
             o, 0, false, [](const SweepTable::Point& point, size_t i) { return point.types[i]; },
             [&](size_t p, size_t i, size_t m) {
               return estimate(present(o.results[p]->metric(i, m, o.seeds[p])));
             });
}

std::string paired_csv(const SweepOutcome& o) {
  return header(o.table, {"policy", "baseline", "metric"},
                {"n", "mean_diff", "sd_diff", "ci95", "ci95_lo", "ci95_hi"}) +
         metric_rows(
             o, 1, true, [](const SweepTable::Point& point, size_t) { return point.policies[0]; },
             [&](size_t p, size_t i, size_t m) {
               return paired_difference(o.results[p]->metric(0, m, o.seeds[p]),
                                        o.results[p]->metric(i, m, o.seeds[p]));
             });
}

std::string console_table(const SweepOutcome& o, size_t max_rows) {
  std::vector<std::string> head = {"point"};
  head.insert(head.end(), o.table.axis_paths.begin(), o.table.axis_paths.end());
  head.insert(head.end(), {"policy", "seeds", "goodput (95% CI)", "vs first (paired)", "ettr (95% CI)"});
  Table t(head);
  size_t rows = 0, total = 0;
  for (size_t p = 0; p < o.table.points.size(); ++p) {
    const SweepTable::Point& point = o.table.points[p];
    const auto base = o.results[p]->metric(0, kGoodput, o.seeds[p]);
    for (size_t i = 0; i < point.policies.size(); ++i, ++total) {
      if (rows == max_rows) continue;
      std::vector<std::string> cells = point_head(o.table, p);
      const auto mine = o.results[p]->metric(i, kGoodput, o.seeds[p]);
      const Estimate d = paired_difference(base, mine);
      cells.insert(cells.end(), {point.policies[i], fmt::format("{}", o.seeds[p]),
                                 with_ci(estimate(present(mine))),
                                 i == 0 ? std::string("-") : signed_with_ci(d),
                                 with_ci(estimate(present(o.results[p]->metric(i, kEttr, o.seeds[p]))))});
      t.add_row(std::move(cells));
      ++rows;
    }
  }
  std::string out = t.render();
  if (rows < total) out += fmt::format("... {} more rows in summary.csv\n", total - rows);
  return out;
}

}  // namespace goodsim::app::sweep
