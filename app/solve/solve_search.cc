#include "app/solve/solve_search.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "app/sweep/task_pool.h"
#include "models/resource_estimate.h"
#include "sim/scenario/error.h"
#include "sim/scenario/overrides.h"

namespace goodsim::app::solve {
namespace {

using scenario::ScenarioError;
constexpr size_t kInitialAutoSeeds = 8;
constexpr size_t kScanPoints = 33;

// Contiguous runs of decided verdicts along the knob: more than two means a requirement
// went met -> failed -> met (or the reverse), which no monotone metric does.
bool contradicts(const std::map<double, Evaluation>& evals, size_t r) {
  std::optional<Verdict> last;
  int changes = 0;
  for (const auto& [v, e] : evals) {
    const Verdict now = e.judged[r].verdict;
    if (now == Verdict::kUndecided) continue;
    if (last && *last != now) ++changes;
    last = now;
  }
  return changes > 1;
}

// A value whose metric lies, with its whole confidence interval, below both neighbours'
// intervals (or above both): a peak or a dip no monotone metric has.
bool has_extremum(const std::map<double, Evaluation>& evals, size_t r) {
  std::vector<const Judgement*> js;
  for (const auto& [v, e] : evals) {
    if (!std::isnan(e.judged[r].lower) && !std::isnan(e.judged[r].upper)) js.push_back(&e.judged[r]);
  }
  for (size_t i = 1; i + 1 < js.size(); ++i) {
    const Judgement &a = *js[i - 1], &b = *js[i], &c = *js[i + 1];
    if (b.upper < std::min(a.lower, c.lower) || b.lower > std::max(a.upper, c.upper)) return true;
  }
  return false;
}

bool any_contradiction(const Evaluator& ev) {
  for (size_t r = 0; r < ev.requirements().size(); ++r)
    if (contradicts(ev.evaluations(), r) || has_extremum(ev.evaluations(), r)) return true;
  return false;
}

std::vector<double> scan_values(const Knob& k, double lo, double hi, size_t whole_up_to) {
  std::vector<double> out;
  const double span = hi - lo;
  if (k.integer && span < static_cast<double>(whole_up_to)) {
    for (double v = lo; v <= hi; v += 1) out.push_back(v);
    return out;
  }
  for (size_t i = 0; i < kScanPoints; ++i) {
    double v = lo + span * static_cast<double>(i) / (kScanPoints - 1);
    if (k.integer) v = std::round(v);
    if (out.empty() || out.back() != v) out.push_back(v);
  }
  return out;
}

// The bisection step at which the search stops: 1 for an integer knob, else 1/512 of the range.
double resolution(const Knob& k) { return k.integer ? 1.0 : (k.hi - k.lo) / 512; }

double midpoint(const Knob& k, double a, double b) {
  const double m = (a + b) / 2;
  return k.integer ? std::floor(m) : m;
}

}  // namespace

std::string verdict_name(Verdict v) {
  return v == Verdict::kMet ? "met" : v == Verdict::kFailed ? "failed" : "undecided";
}

// Undecided at the budget counts as not met: nothing showed the requirement holds.
bool Evaluation::feasible() const {
  return std::all_of(judged.begin(), judged.end(), [](const Judgement& j) { return j.verdict == Verdict::kMet; });
}

bool Evaluation::decided() const {
  return std::none_of(judged.begin(), judged.end(), [](const Judgement& j) { return j.verdict == Verdict::kUndecided; });
}

Evaluator::Evaluator(const ScenarioSource& src, const SolveOptions& options, Knob knob,
                     std::vector<Requirement> requirements, const models::Registry& registry)
    : src_(src), options_(options), knob_(std::move(knob)), requirements_(std::move(requirements)),
      registry_(registry), policy_name_(options.policy) {
  check_value(knob_.lo);
  check_value(knob_.hi);
}

void Evaluator::check_value(double value) { point(value); }

const Evaluator::Point& Evaluator::point(double value) {
  if (auto it = points_.find(value); it != points_.end()) return it->second;
  ScenarioSource s = src_;
  const std::string assignment = knob_.path + "=" + knob_.value_text(value);
  const std::vector<scenario::KeySource> sources = {{"--find", knob_.path}};
  std::optional<models::PreparedScenario> maybe;
  try {
    scenario::apply_override(s.doc, assignment);
    maybe.emplace(prepare_source(s, registry_));
  } catch (const ScenarioError& e) {
    const ScenarioError a = scenario::attribute_to_sources(e, sources);
    if (a.file() == "--find" || a.file() == "--set") {
      throw ScenarioError("--find", a.path(), fmt::format("{} (at {})", a.message(), knob_.value_text(value)));
    }
    throw;
  }
  models::PreparedScenario& prepared = *maybe;
  models::enforce_limits(prepared, models::estimate_resources(prepared), {});
  std::vector<std::string> names;
  size_t index = prepared.policies.size();
  for (size_t i = 0; i < prepared.policies.size(); ++i) {
    names.push_back(prepared.policies[i].name);
    if (prepared.policies[i].name == policy_name_) index = i;
  }
  if (policy_name_.empty() && names.size() == 1) index = 0, policy_name_ = names[0];
  if (index == prepared.policies.size()) {
    throw ScenarioError("--policy", policy_name_,
                        fmt::format("expected the name of one of the scenario's policies: \"{}\"",
                                    fmt::join(names, "\", \"")));
  }
  return points_.emplace(value, Point{std::move(prepared), index}).first->second;
}

void Evaluator::judge(Evaluation& e) const {
  e.judged.clear();
  for (const Requirement& r : requirements_) {
    Judgement j;
    std::vector<double> values;
    for (const sweep::MetricValues& m : e.runs) {
      if (m[r.metric]) values.push_back(*m[r.metric]);
    }
    j.missing = e.runs.size() - values.size();
    j.estimate = sweep::estimate(values);
    const double half = values.size() < 2 ? std::numeric_limits<double>::quiet_NaN()
                        : j.estimate.sd == 0 ? 0.0
                        : sweep::t_quantile(options_.confidence, values.size() - 1) * j.estimate.sd /
                              std::sqrt(static_cast<double>(values.size()));
    j.lower = j.estimate.mean - half, j.upper = j.estimate.mean + half;
    const bool met = r.met_by(r.lower_bound() ? j.lower : j.upper);
    const bool failed = !r.met_by(r.lower_bound() ? j.upper : j.lower);
    if (values.empty()) j.verdict = Verdict::kFailed;
    else if (std::isnan(half)) j.verdict = Verdict::kUndecided;
    else if (failed) j.verdict = Verdict::kFailed;
    else if (met && j.missing == 0) j.verdict = Verdict::kMet;
    else j.verdict = Verdict::kUndecided;
    e.judged.push_back(j);
  }
}

size_t Evaluator::target_seeds(const Evaluation& e) const {
  if (options_.seeds) return *options_.seeds;
  if (e.runs.empty()) return kInitialAutoSeeds;
  return std::min(options_.max_seeds, 2 * e.runs.size());
}

void Evaluator::evaluate(const std::vector<double>& values) {
  while (true) {
    // Seeds each value needs this round.
    std::vector<std::pair<double, size_t>> work;
    for (double v : values) {
      point(v);
      auto [it, fresh] = evaluations_.try_emplace(v);
      Evaluation& e = it->second;
      if (fresh) e.value = v, e.order = evaluations_.size() - 1;
      const bool open = e.runs.empty() || (!e.decided() && e.runs.size() < target_seeds(e));
      if (open) work.emplace_back(v, target_seeds(e));
    }
    if (work.empty()) return;
    sweep::TaskPool pool(options_.jobs > 0 ? options_.jobs : sweep::TaskPool::default_threads());
    std::vector<std::vector<sweep::MetricValues>> fresh(work.size());
    for (size_t w = 0; w < work.size(); ++w) {
      const Point& p = points_.at(work[w].first);
      const uint64_t first = p.prepared.scenario.seed;
      const size_t have = evaluations_.at(work[w].first).runs.size();
      fresh[w].resize(work[w].second - have);
      for (size_t k = have; k < work[w].second; ++k) {
        pool.submit([&, w, k, have, first] {
          const output::PolicyResult r = models::run_policy(
              p.prepared, p.policy, scenario::replication_seed(first, k), nullptr);
          fresh[w][k - have] = sweep::metric_values(r);
        });
      }
    }
    pool.wait();
    for (size_t w = 0; w < work.size(); ++w) {
      Evaluation& e = evaluations_.at(work[w].first);
      simulations_ += fresh[w].size();
      e.runs.insert(e.runs.end(), fresh[w].begin(), fresh[w].end());
      judge(e);
    }
  }
}

namespace {

SolveResult scan(Evaluator& ev, bool maximize, const std::function<void(const Evaluation&)>& log) {
  SolveResult out;
  out.scanned = true;
  const Knob& k = ev.knob();
  const std::vector<double> values = scan_values(k, k.lo, k.hi, 2 * kScanPoints);
  ev.evaluate(values);
  for (double v : values) if (log) log(ev.at(v));
  std::optional<size_t> best;
  for (size_t i = 0; i < values.size(); ++i) {
    if (!ev.at(values[i]).feasible()) continue;
    if (!best || maximize) best = i;
    if (!maximize) break;
  }
  if (best) {
    out.answer = values[*best];
    if (*best > 0) out.below = values[*best - 1];
    if (*best + 1 < values.size()) out.above = values[*best + 1];
  }
  return out;
}

}  // namespace

SolveResult search(Evaluator& ev, bool maximize, const std::function<void(const Evaluation&)>& log) {
  const Knob& k = ev.knob();
  // The middle too: three values can show a peak or a dip (has_extremum).
  std::vector<double> first = {k.lo, midpoint(k, k.lo, k.hi), k.hi};
  first.erase(std::unique(first.begin(), first.end()), first.end());
  ev.evaluate(first);
  if (log) for (double v : first) log(ev.at(v));
  SolveResult out;
  // The end where the answer lies when the whole range is feasible.
  const double best_end = maximize ? k.hi : k.lo, other_end = maximize ? k.lo : k.hi;
  if (ev.at(best_end).feasible()) {
    out.answer = best_end;
    (maximize ? out.below : out.above) = other_end;
  } else if (ev.at(other_end).feasible()) {
    double good = other_end, bad = best_end;
    const double mid0 = midpoint(k, k.lo, k.hi);
    if (mid0 != k.lo && mid0 != k.hi) (ev.at(mid0).feasible() ? good : bad) = mid0;
    while (std::abs(good - bad) > resolution(k) && !any_contradiction(ev)) {
      const double mid = midpoint(k, good, bad);
      if (mid == good || mid == bad) break;
      ev.evaluate({mid});
      if (log) log(ev.at(mid));
      (ev.at(mid).feasible() ? good : bad) = mid;
    }
    out.answer = good;
    (maximize ? out.above : out.below) = bad;
  }
  if (any_contradiction(ev)) {
    SolveResult s = scan(ev, maximize, log);
    s.monotone = false;
    s.simulations = ev.simulations();
    return s;
  }
  out.simulations = ev.simulations();
  return out;
}

double metric_mean(const Evaluation& e, size_t metric) {
  std::vector<double> values;
  for (const sweep::MetricValues& m : e.runs) {
    if (m[metric]) values.push_back(*m[metric]);
  }
  return values.empty() ? std::numeric_limits<double>::quiet_NaN() : sweep::estimate(values).mean;
}

SolveResult optimise(Evaluator& ev, size_t metric, bool maximize,
                     const std::function<void(const Evaluation&)>& log) {
  const SolveResult low = search(ev, false, log);
  if (!low.answer) return low;
  const SolveResult high = search(ev, true, log);
  const double a = *low.answer, b = high.answer.value_or(a);
  const std::vector<double> values = scan_values(ev.knob(), a, b, kScanPoints);
  ev.evaluate(values);
  SolveResult out;
  out.monotone = low.monotone && high.monotone;
  out.scanned = true;
  std::optional<size_t> best;
  for (size_t i = 0; i < values.size(); ++i) {
    const Evaluation& e = ev.at(values[i]);
    if (log) log(e);
    const double m = metric_mean(e, metric);
    if (!e.feasible() || std::isnan(m)) continue;
    const double held = best ? metric_mean(ev.at(values[*best]), metric) : 0;
    if (!best || (maximize ? m > held : m < held)) best = i;
  }
  if (best) {
    out.answer = values[*best];
    if (*best > 0) out.below = values[*best - 1];
    if (*best + 1 < values.size()) out.above = values[*best + 1];
  }
  out.simulations = ev.simulations();
  return out;
}

}  // namespace goodsim::app::solve
