#include "app/diff/diff.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <ostream>
#include <set>

#include "app/diff/diff_report.h"
#include "app/sweep/compare.h"
#include "sim/output/atomic_file.h"
#include "sim/scenario/error.h"

namespace goodsim::app::diff {
namespace {

using scenario::ScenarioError;
using sweep::Estimate;
using sweep::kMetrics;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// seed -> value of a sample (the last value of a seed listed twice wins).
std::map<uint64_t, std::optional<double>> by_seed(const MetricSample& s) {
  std::map<uint64_t, std::optional<double>> out;
  for (size_t k = 0; k < s.seeds.size(); ++k) out[s.seeds[k]] = s.values[k];
  return out;
}

bool same_seeds(const MetricSample& a, const MetricSample& b) {
  if (a.recorded || b.recorded || a.seeds.empty()) return false;
  const auto sa = by_seed(a), sb = by_seed(b);
  return std::equal(sa.begin(), sa.end(), sb.begin(), sb.end(),
                    [](const auto& x, const auto& y) { return x.first == y.first; });
}

// Welch's interval of b.mean - a.mean; nullopt when a side has fewer than 2 values.
std::optional<double> welch_half_width(const Estimate& a, const Estimate& b) {
  if (a.n < 2 || b.n < 2) return std::nullopt;
  const double va = a.sd * a.sd / static_cast<double>(a.n);
  const double vb = b.sd * b.sd / static_cast<double>(b.n);
  const double denom = va * va / static_cast<double>(a.n - 1) +
                       vb * vb / static_cast<double>(b.n - 1);
  const double df = denom > 0 ? (va + vb) * (va + vb) / denom
                              : static_cast<double>(a.n + b.n - 2);
  return sweep::t975(std::max<size_t>(1, static_cast<size_t>(df))) * std::sqrt(va + vb);
}

std::string verdict_of(const Estimate& a, const Estimate& b, size_t metric,
                       const std::optional<Estimate>& paired) {
  if ((paired ? paired->n : std::min(a.n, b.n)) < 2) return "n/a";
  const sweep::BaselineMetric base{metric, a.mean, a.sd, a.n, std::nullopt, {}};
  switch (sweep::compare_metric(base, b, kMetrics[metric].better, std::nullopt, paired).kind) {
    case sweep::Verdict::Kind::kImproved: return "better";
    case sweep::Verdict::Kind::kRegressed: return "worse";
    case sweep::Verdict::Kind::kChanged: return "changed";
    case sweep::Verdict::Kind::kOk: break;
  }
  return "same";
}

DiffRow compare(const MetricSample& a, const MetricSample& b, size_t metric) {
  DiffRow row;
  row.metric = metric;
  row.a = a.estimate();
  row.b = b.estimate();
  row.change = kNaN;
  if (!a.present() || !b.present()) {
    row.verdict = a.present() ? "missing in B" : "missing in A";
    return row;
  }
  std::optional<Estimate> paired;
  if (same_seeds(a, b)) {
    std::vector<std::optional<double>> av, bv;
    for (const auto& [seed, v] : by_seed(a)) av.push_back(v);
    for (const auto& [seed, v] : by_seed(b)) bv.push_back(v);
    paired = sweep::paired_difference(av, bv);
    row.paired = true;
    row.n = paired->n;
    row.change = paired->mean;
    if (paired->n >= 2) std::tie(row.lo, row.hi) = sweep::ci_bounds(*paired, metric, true);
  } else {
    row.n = std::min(row.a.n, row.b.n);
    row.change = row.b.mean - row.a.mean;
    if (const auto half = welch_half_width(row.a, row.b)) {
      const Estimate e{row.n, row.change, 0, *half};
      std::tie(row.lo, row.hi) = sweep::ci_bounds(e, metric, true);
    }
  }
  row.verdict = verdict_of(row.a, row.b, metric, paired);
  return row;
}

bool rule_holds(const FailRule& r, double change) {
  if (r.op == "<") return change < r.threshold;
  if (r.op == "<=") return change <= r.threshold;
  if (r.op == ">") return change > r.threshold;
  return change >= r.threshold;
}

void apply_rules(DiffRow& row, const std::vector<FailRule>& rules) {
  for (const FailRule& r : rules) {
    if (r.metric != row.metric) continue;
    const bool judged = row.significant() || row.verdict == "n/a";
    if (row.verdict == "missing in B" ||
        (std::isfinite(row.change) && judged && rule_holds(r, row.change))) {
      row.fired.push_back(r.text);
    }
  }
}

std::string seed_range(const SideRow& r) {
  for (const auto& m : r.metrics) {
    if (!m) continue;
    if (m->recorded) return "no per-seed values";
    std::set<uint64_t> s(m->seeds.begin(), m->seeds.end());
    if (s.empty()) return "no seeds";
    return s.size() == 1 ? fmt::format("seed {}", *s.begin())
                         : fmt::format("{} seeds {}..{}", s.size(), *s.begin(), *s.rbegin());
  }
  return "no metrics";
}

std::vector<std::string> groups_of(const Side& s) {
  std::vector<std::string> out;
  for (const SideRow& r : s.rows) {
    if (std::find(out.begin(), out.end(), r.group) == out.end()) out.push_back(r.group);
  }
  return out;
}

}  // namespace

bool DiffRow::significant() const {
  return verdict == "better" || verdict == "worse" || verdict == "changed";
}

size_t DiffResult::fired() const {
  size_t n = 0;
  for (const DiffRow& r : rows) n += r.fired.empty() ? 0 : 1;
  return n;
}

FailRule parse_rule(const std::string& text) {
  std::string s;
  for (char c : text) {
    if (c != ' ' && c != '\t') s += c;
  }
  const size_t op_at = s.find_first_of("<>");
  const auto fail = [&](const std::string& what) {
    return ScenarioError("--fail-on " + text, "", what);
  };
  if (op_at == std::string::npos || op_at == 0) {
    throw fail("expected METRIC<X, METRIC<=X, METRIC>X or METRIC>=X, e.g. 'goodput<-0.01' "
               "(a change B - A)");
  }
  FailRule r{text, 0, s.substr(op_at, s.size() > op_at + 1 && s[op_at + 1] == '=' ? 2 : 1), 0};
  const auto metric = sweep::metric_index(s.substr(0, op_at));
  if (!metric) {
    throw fail(fmt::format("unknown metric \"{}\"; expected one of {}", s.substr(0, op_at),
                           sweep::metric_names()));
  }
  r.metric = *metric;
  const std::string number = s.substr(op_at + r.op.size());
  char* end = nullptr;
  r.threshold = std::strtod(number.c_str(), &end);
  if (number.empty() || end != number.c_str() + number.size() || !std::isfinite(r.threshold)) {
    throw fail(fmt::format("expected a number after \"{}\", got \"{}\"", r.op, number));
  }
  return r;
}

DiffResult diff_sides(Side a, Side b, const std::vector<FailRule>& rules) {
  DiffResult res{std::move(a), std::move(b), {}, {}, rules};
  const auto ga = groups_of(res.a), gb = groups_of(res.b);
  const bool single = ga.size() == 1 && gb.size() == 1;
  if (single && ga[0] != gb[0]) {
    res.warnings.push_back(fmt::format("A is \"{}\" and B is \"{}\": compared as the same "
                                       "scenario", ga[0], gb[0]));
  }
  std::set<std::string> lost;
  std::vector<bool> used(res.b.rows.size(), false);
  for (const SideRow& ra : res.a.rows) {
    size_t j = 0;
    while (j < res.b.rows.size() && !(res.b.rows[j].policy == ra.policy &&
                                      (single || res.b.rows[j].group == ra.group))) ++j;
    if (j == res.b.rows.size()) {
      res.warnings.push_back(fmt::format("{} / {}: only in A", ra.group, ra.policy));
      continue;
    }
    used[j] = true;
    const SideRow& rb = res.b.rows[j];
    for (size_t m = 0; m < sweep::kMetricCount; ++m) {
      if (!ra.metrics[m] || !rb.metrics[m]) continue;
      if (!ra.metrics[m]->present() && !rb.metrics[m]->present()) continue;
      DiffRow row = compare(*ra.metrics[m], *rb.metrics[m], m);
      row.group = ra.group;
      row.policy = ra.policy;
      if (!row.paired && row.verdict.rfind("missing", 0) != 0 && lost.insert(ra.group).second) {
        res.warnings.push_back(fmt::format(
            "{}: A has {}, B has {}: not the same seeds, so the runs are compared unpaired "
            "(Welch intervals, much wider than with common random numbers); rerun with the "
            "same seeds to pair them", ra.group, seed_range(ra), seed_range(rb)));
      }
      apply_rules(row, rules);
      res.rows.push_back(std::move(row));
    }
  }
  for (size_t j = 0; j < res.b.rows.size(); ++j) {
    if (!used[j]) {
      res.warnings.push_back(
          fmt::format("{} / {}: only in B", res.b.rows[j].group, res.b.rows[j].policy));
    }
  }
  if (res.rows.empty()) {
    throw ScenarioError(res.b.path, "", fmt::format("nothing to compare with {}: no scenario "
                                                    "(or grid point) and policy in common",
                                                    res.a.path));
  }
  return res;
}

int diff_command(const DiffOptions& o, std::ostream& out, std::ostream& err) {
  std::vector<FailRule> rules;
  for (const std::string& text : o.fail_on) rules.push_back(parse_rule(text));
  const DiffFormat format = diff_format(o.format);
  const DiffResult result = diff_sides(load_side(o.a), load_side(o.b), rules);
  std::string command;
  for (const std::string& arg : o.argv) command += (command.empty() ? "" : " ") + arg;
  if (!o.out_dir.empty()) {
    const std::filesystem::path dir(o.out_dir);
    std::filesystem::create_directories(dir);
    output::write_file_atomically(dir / "diff.json", diff_json(result, command));
    output::write_file_atomically(dir / "diff.md", diff_markdown(result));
  }
  if (format != DiffFormat::kText) {
    for (const std::string& w : result.warnings) err << "warning: " << w << "\n";
  }
  out << render_diff(result, format, command);
  return result.fired() == 0 ? 0 : 1;
}

}  // namespace goodsim::app::diff
