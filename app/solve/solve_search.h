// The search behind `goodsim solve` (docs/solve.md).
//
// Evaluator runs one policy of a scenario at a knob value over seeds
// replication_seed(first, 0 .. n-1), the same seeds at every value (common
// random numbers), and judges each requirement with one-sided confidence
// bounds at level c: a ">=" requirement is met when mean - t(c, n-1) sd/sqrt(n)
// clears X, failed when mean + t(c, n-1) sd/sqrt(n) is below X, undecided
// otherwise ("<=" the mirror image). An undecided value gets more seeds (the
// count doubles) until it is decided or the seed budget is spent; a value still
// undecided then counts as not meeting the requirement. A run without a value
// of the metric (a target never reached) does not meet it.
//
// search() assumes each requirement is monotone in the knob: it evaluates both
// ends, then bisects between a value that meets every requirement and one that
// does not. Whenever the decided verdicts of a requirement change more than
// once along the knob, monotonicity is contradicted: the search says so and
// scans an evenly spaced grid of the range instead.
#pragma once

#include <atomic>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "app/scenario_source.h"
#include "app/solve/solve_spec.h"
#include "app/sweep/metrics.h"
#include "app/sweep/stats.h"

namespace goodsim::app::solve {

enum class Verdict { kMet, kFailed, kUndecided };
std::string verdict_name(Verdict v);

struct Judgement {
  sweep::Estimate estimate;  // over the runs that have a value
  double lower = 0, upper = 0;  // one-sided bounds at the confidence level
  size_t missing = 0;           // runs without a value
  Verdict verdict = Verdict::kUndecided;
};

struct Evaluation {
  double value = 0;
  size_t order = 0;  // 0 for the first value evaluated
  std::vector<sweep::MetricValues> runs;  // one per seed, in seed order
  std::vector<Judgement> judged;          // one per requirement
  bool feasible() const;  // every requirement met
  bool decided() const;   // no requirement undecided
};

struct SolveResult {
  std::optional<double> answer;
  std::optional<double> below, above;  // the evaluated neighbours of the answer (or boundary)
  bool monotone = true;   // no contradiction seen
  bool scanned = false;   // fell back to a scan
  size_t simulations = 0;
};

class Evaluator {
 public:
  // Prepares nothing yet; throws ScenarioError for an unknown policy.
  Evaluator(const ScenarioSource& src, const SolveOptions& options, Knob knob,
            std::vector<Requirement> requirements, const models::Registry& registry);

  // Evaluates every value of `values` (new ones, or more seeds for undecided
  // ones) until each is decided or at the budget, running seeds on the pool.
  void evaluate(const std::vector<double>& values);
  const Evaluation& at(double value) const { return evaluations_.at(value); }
  const std::map<double, Evaluation>& evaluations() const { return evaluations_; }
  size_t simulations() const { return simulations_; }
  const Knob& knob() const { return knob_; }
  const std::vector<Requirement>& requirements() const { return requirements_; }
  const std::string& policy() const { return policy_name_; }
  // Checks the knob path and the scenario at `value` (throws ScenarioError).
  void check_value(double value);

 private:
  struct Point {
    models::PreparedScenario prepared;
    size_t policy = 0;
  };
  const Point& point(double value);
  void judge(Evaluation& e) const;
  size_t target_seeds(const Evaluation& e) const;

  ScenarioSource src_;
  SolveOptions options_;
  Knob knob_;
  std::vector<Requirement> requirements_;
  const models::Registry& registry_;
  std::string policy_name_;
  std::map<double, Point> points_;
  std::map<double, Evaluation> evaluations_;
  size_t simulations_ = 0;
};

// Runs the search. `log` (may be null) is told of each value as it is decided.
SolveResult search(Evaluator& ev, bool maximize, const std::function<void(const Evaluation&)>& log);

// The mean of metric `metric` over the runs of `e` that have it (NaN when none has).
double metric_mean(const Evaluation& e, size_t metric);

// --objective: the feasible values, [smallest, largest] as search() finds them (each
// requirement monotone), scanned (every value of an integer interval of at most 33, else
// 33 evenly spaced values); the answer is the feasible value with the lowest (highest, when
// `maximize`) mean of `metric`.
SolveResult optimise(Evaluator& ev, size_t metric, bool maximize,
                     const std::function<void(const Evaluation&)>& log);

}  // namespace goodsim::app::solve
