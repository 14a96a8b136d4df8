// What `goodsim solve` is asked (docs/solve.md): one scenario knob and its
// range (--find PATH=LO..HI), requirements on a policy's metrics
// (--require 'METRIC>=X'), and which end of the feasible range is wanted, or
// which metric to minimise over it (--objective).
//
// Knob values: LO and HI are numbers, optionally with a unit suffix. Durations
// ("1m..2h") are searched in seconds and written back as "<seconds>s"; another
// suffix must be the same on both ends ("10Gbps..400Gbps") and is appended to
// each value. A knob whose ends are whole numbers written without a decimal
// point or exponent ("0..64") is an integer knob: only whole values are tried.
//
// Requirements: METRIC is a sweep metric (app/sweep/metrics.h: goodput, ettr,
// fleet_goodput, cost, ...), the operator one of >=, >, <=, <, and X a number
// or, for a metric in seconds (suffix _s), a duration ("30d").
//
// Errors are scenario::ScenarioError naming the option ("--find", "--require",
// "--policy", "--confidence"), the key and what was expected.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace goodsim::app::solve {

struct Knob {
  std::string path;    // scenario key, as for --set
  double lo = 0;       // in the search unit (seconds for durations)
  double hi = 0;
  bool integer = false;
  bool duration = false;
  std::string suffix;  // appended to a value (not for durations)

  // The JSON text --set would take for value v ("3", "90s", "25Gbps").
  std::string value_text(double v) const;
};

enum class Op { kGe, kGt, kLe, kLt };

struct Requirement {
  std::string text;   // as written
  size_t metric = 0;  // index in sweep::kMetrics
  Op op = Op::kGe;
  double threshold = 0;

  bool lower_bound() const { return op == Op::kGe || op == Op::kGt; }  // needs a high metric
  bool met_by(double v) const;  // v satisfies the comparison
};

struct SolveOptions {
  std::string scenario;
  std::vector<std::string> sets;
  std::string policy;
  std::string find;                   // PATH=LO..HI
  std::vector<std::string> requirements;  // METRIC>=X, each --require
  bool maximize = false;              // default: the smallest feasible knob value
  // --objective METRIC: minimise (maximise) this metric's mean over the feasible values
  // instead of the knob itself; absent: the knob.
  std::optional<std::string> objective;
  double confidence = 0.95;
  std::optional<size_t> seeds;        // fixed seeds per value (no growth)
  size_t max_seeds = 64;              // --auto-seeds budget per value
  unsigned jobs = 0;                  // 0: one per core
  std::optional<std::string> out_dir;
  bool quiet = false;
};

// Throws ScenarioError("--find", path, ...) on a malformed or empty range.
Knob parse_find(std::string_view arg);
// Throws ScenarioError("--require", text, ...) on an unknown metric or a bad comparison.
Requirement parse_require(std::string_view arg);
std::string op_text(Op op);

}  // namespace goodsim::app::solve
