#include "app/solve/solve_spec.h"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <exception>

#include "app/sweep/csv.h"
#include "app/sweep/metrics.h"
#include "sim/scenario/error.h"
#include "sim/scenario/text.h"
#include "sim/scenario/units.h"

namespace goodsim::app::solve {
namespace {

using scenario::ScenarioError;
using scenario::trim;

struct Number {
  double value = 0;
  std::string suffix;
  bool whole = false;  // digits only: no '.', no exponent
};

// A number followed by an optional unit suffix: "12", "2.5", "1e3", "30m".
std::optional<Number> parse_number_suffix(std::string_view text) {
  text = trim(text);
  size_t i = 0;
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) ++i;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.'))
    ++i;
  bool exponent = false;
  if (i + 1 < text.size() && (text[i] == 'e' || text[i] == 'E') &&
      (std::isdigit(static_cast<unsigned char>(text[i + 1])) || text[i + 1] == '-' ||
       text[i + 1] == '+')) {
    exponent = true;
    i += 2;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
  }
  const std::string_view digits = text.substr(text.front() == '+' ? 1 : 0, i - (text.front() == '+' ? 1 : 0));
  const std::optional<double> v = sweep::parse_number(digits);
  if (!v) return std::nullopt;
  return Number{*v, std::string(trim(text.substr(i))),
                !exponent && digits.find('.') == std::string_view::npos};
}

// Seconds of a duration text, or nullopt.
std::optional<double> duration_seconds(std::string_view text) {
  try {
    return scenario::parse_duration(trim(text)).seconds_f();
  } catch (const std::exception&) {  // not a duration
    return std::nullopt;
  }
}

}  // namespace

std::string Knob::value_text(double v) const {
  if (integer) return fmt::format("{}", static_cast<int64_t>(std::llround(v)));
  if (duration) return fmt::format("\"{}s\"", sweep::format_number(v));
  if (!suffix.empty()) return fmt::format("\"{}{}\"", sweep::format_number(v), suffix);
  return sweep::format_number(v);
}

Knob parse_find(std::string_view arg) {
  const size_t eq = arg.find('=');
  if (eq == std::string_view::npos || eq == 0)
    throw ScenarioError("--find", "", fmt::format("expected PATH=LO..HI, got \"{}\"", arg));
  Knob k;
  k.path = std::string(trim(arg.substr(0, eq)));
  const std::string_view range = arg.substr(eq + 1);
  const size_t dots = range.find("..");
  const auto a = dots == std::string_view::npos ? std::nullopt : parse_number_suffix(range.substr(0, dots));
  const auto b = dots == std::string_view::npos ? std::nullopt : parse_number_suffix(range.substr(dots + 2));
  if (!a || !b) {
    throw ScenarioError("--find", k.path,
                        fmt::format("expected a range LO..HI of numbers (\"0..64\", \"1m..2h\"), got \"{}\"", range));
  }
  k.lo = a->value, k.hi = b->value;
  if (!a->suffix.empty() || !b->suffix.empty()) {
    const auto sa = duration_seconds(range.substr(0, dots)), sb = duration_seconds(range.substr(dots + 2));
    if (sa && sb) {
      k.duration = true, k.lo = *sa, k.hi = *sb;
    } else if (a->suffix != b->suffix) {
      throw ScenarioError("--find", k.path,
                          fmt::format("expected the same unit on both ends, got \"{}\" and \"{}\"", a->suffix, b->suffix));
    } else {
      k.suffix = a->suffix;
    }
  }
  k.integer = !k.duration && k.suffix.empty() && a->whole && b->whole;
  if (!(k.lo < k.hi)) {
    throw ScenarioError("--find", k.path,
                        fmt::format("the range {} is empty: expected LO < HI", range));
  }
  return k;
}

bool Requirement::met_by(double v) const {
  switch (op) {
    case Op::kGe: return v >= threshold;
    case Op::kGt: return v > threshold;
    case Op::kLe: return v <= threshold;
    case Op::kLt: return v < threshold;
  }
  return false;
}

std::string op_text(Op op) {
  switch (op) {
    case Op::kGe: return ">=";
    case Op::kGt: return ">";
    case Op::kLe: return "<=";
    case Op::kLt: return "<";
  }
  return "?";
}

Requirement parse_require(std::string_view arg) {
  Requirement r;
  r.text = std::string(trim(arg));
  const size_t at = arg.find_first_of("<>");
  if (at == std::string_view::npos) {
    throw ScenarioError("--require", r.text, "expected METRIC>=X, METRIC>X, METRIC<=X or METRIC<X");
  }
  const bool eq = at + 1 < arg.size() && arg[at + 1] == '=';
  r.op = arg[at] == '>' ? (eq ? Op::kGe : Op::kGt) : (eq ? Op::kLe : Op::kLt);
  const std::string metric(trim(arg.substr(0, at)));
  const auto index = sweep::metric_index(metric);
  if (!index) {
    std::string msg = fmt::format("unknown metric \"{}\"", metric);
    std::vector<std::string> names;
    for (const auto& m : sweep::kMetrics) names.emplace_back(m.name);
    if (auto best = scenario::closest_match(metric, names)) msg += fmt::format("; did you mean \"{}\"?", *best);
    throw ScenarioError("--require", r.text, msg + fmt::format(" (metrics: {})", sweep::metric_names()));
  }
  r.metric = *index;
  const std::string_view value = trim(arg.substr(at + (eq ? 2 : 1)));
  std::optional<double> x = sweep::parse_number(value);
  if (!x && metric.size() > 2 && metric.ends_with("_s")) x = duration_seconds(value);
  if (!x) {
    throw ScenarioError("--require", r.text,
                        fmt::format("expected a number after {} (a duration for a metric in "
                                    "seconds), got \"{}\"", op_text(r.op), value));
  }
  r.threshold = *x;
  return r;
}

}  // namespace goodsim::app::solve
