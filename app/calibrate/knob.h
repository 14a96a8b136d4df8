// One knob of `goodsim calibrate`: a scenario key fitted within a box,
// given on the command line as `--fit PATH=LO..HI`. Several keys that must
// share one value form one knob: `--fit a.x,b.y=LO..HI`.
//
// LO and HI are numbers or durations ("5s..10m"; a duration knob writes its
// values back as durations in seconds, "12.5s"). The solver works in a
// normalised coordinate z in [0, 1]: linear in the value, or linear in its
// logarithm when the range spans a decade or more (LO > 0 and HI >= 10 LO),
// so a knob over decades is searched evenly per decade.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace goodsim::app::calibrate {

class Knob {
 public:
  // Parses "PATH[,PATH...]=LO..HI". Throws scenario::ScenarioError (file "--fit") when the
  // text is malformed, a bound is not a number or duration, or the range is
  // empty (LO >= HI) or not finite.
  static Knob parse(const std::string& text);

  const std::string& path() const { return path_; }  // the paths as given, "a.x,b.y"
  const std::vector<std::string>& paths() const { return paths_; }
  // For tables and progress lines: the path, or "first (+N more)".
  std::string label() const;
  double lo() const { return lo_; }
  double hi() const { return hi_; }
  bool log_scale() const { return log_; }
  bool duration() const { return duration_; }

  // z in [0, 1] (clamped) -> value, and back (REQUIRES: lo <= value <= hi).
  double value(double z) const;
  double coordinate(double value) const;
  // The value as it goes into the scenario: a number, or "Xs" for a duration.
  nlohmann::json json_value(double value) const;
  // "PATH=VALUE" for scenario::apply_override, one per path.
  std::vector<std::string> assignments(double value) const;
  // The value for people: "12.5s" or "0.25".
  std::string format(double value) const;

 private:
  std::string path_;
  std::vector<std::string> paths_;
  double lo_ = 0, hi_ = 1;
  bool log_ = false;
  bool duration_ = false;
};

}  // namespace goodsim::app::calibrate
