// Parameter grids for `goodsim sweep`: --vary specifications and their
// cartesian product.
//
// A --vary argument is PATH=VALUES. PATH is a scenario key exactly as in --set
// ("cluster.chips", "policies.1.restart_time"). VALUES is one of:
//   v1,v2,...      a list. Each value is JSON when it parses as JSON, else a
//                  plain string (as --set values are): 16384 is a number, 36h a
//                  string. Commas inside [...], {...} or "..." do not split.
//   lin:A..B:N     N >= 2 evenly spaced values from A to B, both included.
//   log:A..B:N     N >= 2 geometrically spaced values from A to B; A, B > 0.
// Range endpoints are numbers, optionally followed by one and the same unit
// suffix ("lin:1h..4h:4", "log:1y..100y:3"); the values then are strings
// with that suffix ("2h"). Range values are rounded to 12 significant digits
// (lin:0..1:11 gives 0.3, not 0.30000000000000004) and written as integers
// when whole. A trailing ":int" rounds every value to the nearest whole number
// (for counts: "cluster.chips=log:1024..65536:7:int").
//
// Grid order: the first --vary is the outermost (slowest-changing) axis, the
// last the innermost; point p has coordinates in row-major order. No --vary
// gives a grid of one point.
//
// Errors are scenario::ScenarioError("--vary", PATH, what was expected), e.g.
//   --vary: cluster.chips: expected log:A..B:N with A > 0 and B > 0, got A = 0
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace goodsim::app::sweep {

struct Axis {
  std::string path;                    // scenario key, as for --set
  std::string spec;                    // VALUES as written
  std::vector<nlohmann::json> values;  // distinct, in order
};

// Parses one --vary argument. Throws ScenarioError.
Axis parse_vary(std::string_view arg);

// The text of a value as it appears in CSV files: a string as is, any other
// JSON value as compact JSON ("16384", "0.25", "true").
std::string value_text(const nlohmann::json& value);

class Grid {
 public:
  // REQUIRES nothing; throws ScenarioError on a repeated path, a "seed" axis
  // (sweeps choose their own seeds) or more than kMaxPoints points.
  explicit Grid(std::vector<Axis> axes);

  static constexpr size_t kMaxPoints = 10'000;

  size_t size() const { return size_; }
  const std::vector<Axis>& axes() const { return axes_; }
  // Value of `axis` at `point`. REQUIRES: point < size(), axis < axes().size().
  const nlohmann::json& value(size_t point, size_t axis) const;
  // Value texts of `point`, one per axis.
  std::vector<std::string> value_texts(size_t point) const;
  // "path=value, path=value" for messages; "(no --vary)" for an empty grid.
  std::string describe(size_t point) const;
  // Applies the values of `point` to `doc` as --set would. Throws
  // ScenarioError("--vary", path, ...) when a path does not exist in `doc`.
  void apply(size_t point, nlohmann::json& doc) const;

 private:
  std::vector<Axis> axes_;
  size_t size_ = 1;
};

}  // namespace goodsim::app::sweep
