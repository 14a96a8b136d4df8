#include "app/calibrate/knob.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "sim/scenario/error.h"
#include "sim/scenario/units.h"

namespace goodsim::app::calibrate {
namespace {

struct Bound {
  double value;
  bool duration;
};

// A plain number, else a duration with a unit (in seconds).
Bound parse_bound(const std::string& text, const std::string& whole) {
  try {
    size_t used = 0;
    const double v = std::stod(text, &used);
    if (used == text.size()) return {v, false};
  } catch (const std::exception&) {
    // not a plain number: try a duration below
  }
  try {
    return {scenario::parse_duration(text).seconds_f(), true};
  } catch (const std::invalid_argument& e) {
    throw scenario::ScenarioError(
        "--fit", whole,
        fmt::format("expected a number or a duration, got \"{}\"", scenario::shorten(text, 60)));
  }
}

}  // namespace

Knob Knob::parse(const std::string& text) {
  const size_t eq = text.find('=');
  const size_t dots = eq == std::string::npos ? std::string::npos : text.find("..", eq);
  if (eq == std::string::npos || eq == 0 || dots == std::string::npos) {
    throw scenario::ScenarioError(
        "--fit", "", fmt::format("expected PATH=LO..HI, got \"{}\"", scenario::shorten(text, 100)));
  }
  Knob k;
  k.path_ = text.substr(0, eq);
  for (size_t from = 0; from <= k.path_.size();) {
    const size_t comma = std::min(k.path_.find(',', from), k.path_.size());
    if (comma == from) {
      throw scenario::ScenarioError("--fit", k.path_, "expected PATH[,PATH...]=LO..HI");
    }
    k.paths_.push_back(k.path_.substr(from, comma - from));
    from = comma + 1;
  }
  const Bound lo = parse_bound(text.substr(eq + 1, dots - eq - 1), k.path_);
  const Bound hi = parse_bound(text.substr(dots + 2), k.path_);
  if (!std::isfinite(lo.value) || !std::isfinite(hi.value) || !(lo.value < hi.value)) {
    throw scenario::ScenarioError(
        "--fit", k.path_,
        fmt::format("empty range: expected LO < HI, got {} .. {}", lo.value, hi.value));
  }
  k.lo_ = lo.value;
  k.hi_ = hi.value;
  k.duration_ = lo.duration || hi.duration;
  k.log_ = lo.value > 0 && hi.value >= 10 * lo.value;
  return k;
}

std::string Knob::label() const {
  if (paths_.size() == 1) return path_;
  return fmt::format("{} (+{} more)", paths_.front(), paths_.size() - 1);
}

double Knob::value(double z) const {
  z = std::clamp(z, 0.0, 1.0);
  if (log_) return std::min(hi_, lo_ * std::pow(hi_ / lo_, z));
  return lo_ + z * (hi_ - lo_);
}

double Knob::coordinate(double value) const {
  if (log_) return std::log(value / lo_) / std::log(hi_ / lo_);
  return (value - lo_) / (hi_ - lo_);
}

nlohmann::json Knob::json_value(double value) const {
  if (duration_) return fmt::format("{:.6g}s", value);
  return value;
}

std::vector<std::string> Knob::assignments(double value) const {
  std::vector<std::string> out;
  for (const std::string& p : paths_) out.push_back(p + "=" + json_value(value).dump());
  return out;
}

std::string Knob::format(double value) const {
  return duration_ ? fmt::format("{:.4g}s", value) : fmt::format("{:.4g}", value);
}

}  // namespace goodsim::app::calibrate
