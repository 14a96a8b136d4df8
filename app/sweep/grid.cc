#include "app/sweep/grid.h"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <optional>
#include <set>

#include "app/sweep/csv.h"
#include "sim/scenario/error.h"
#include "sim/scenario/overrides.h"
#include "sim/scenario/text.h"

namespace goodsim::app::sweep {
namespace {

using Json = nlohmann::json;
using scenario::trim;
constexpr const char* kSource = "--vary";
constexpr size_t kMaxRangePoints = 10'000;

[[noreturn]] void fail(const std::string& path, const std::string& message) {
  throw scenario::ScenarioError(kSource, path, message);
}

// Splits a list at commas that are outside brackets, braces and strings.
std::vector<std::string_view> split_list(std::string_view text) {
  std::vector<std::string_view> items;
  int depth = 0;
  bool in_string = false;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      ++depth;
    } else if (c == ']' || c == '}') {
      --depth;
    } else if (c == ',' && depth == 0) {
      items.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  items.push_back(text.substr(start));
  return items;
}

// A value as --set reads it: JSON when it parses, else the text as a string.
Json parse_value(std::string_view text) {
  Json v = Json::parse(text.begin(), text.end(), nullptr, false);
  return v.is_discarded() ? Json(std::string(text)) : v;
}

void add_distinct(std::vector<Json>& values, Json v, const std::string& path) {
  for (const Json& existing : values) {
    if (existing == v) fail(path, fmt::format("value {} appears twice", value_text(v)));
  }
  values.push_back(std::move(v));
}

std::vector<Json> parse_list(std::string_view text, const std::string& path) {
  std::vector<Json> values;
  const std::vector<std::string_view> items = split_list(text);
  for (size_t i = 0; i < items.size(); ++i) {
    const std::string_view item = trim(items[i]);
    if (item.empty()) {
      fail(path, fmt::format("expected a value at position {} of the list \"{}\"", i + 1, text));
    }
    if (item.find_first_of("\r\n") != std::string_view::npos) {
      fail(path, "values must not contain line breaks");
    }
    add_distinct(values, parse_value(item), path);
  }
  return values;
}

// A number followed by an optional unit suffix: "1e4", "-2.5", "36h".
struct Endpoint {
  double value = 0;
  std::string suffix;
};

std::optional<Endpoint> parse_endpoint(std::string_view text) {
  text = trim(text);
  size_t i = 0, digits = 0;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
  for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i) ++digits;
  if (i < text.size() && text[i] == '.') ++i;
  for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i) ++digits;
  if (digits == 0) return std::nullopt;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    size_t j = i + 1;
    if (j < text.size() && (text[j] == '+' || text[j] == '-')) ++j;
    if (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) {
      for (i = j; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i) {
      }
    }
  }
  std::string_view number = text.substr(0, i);
  if (number.front() == '+') number.remove_prefix(1);
  const std::optional<double> v = parse_number(number);
  if (!v) return std::nullopt;
  return Endpoint{*v, std::string(trim(text.substr(i)))};
}

// The pieces of "A..B:N[:int]".
struct RangeSpec {
  Endpoint a, b;
  size_t n = 0;
  bool whole = false;
};

RangeSpec parse_range_spec(std::string_view kind, std::string_view body, const std::string& path) {
  const std::string usage =
      fmt::format("expected {}:A..B:N (e.g. {}:1..100:5 or {}:1h..4h:4)", kind, kind, kind);
  const size_t dots = body.find("..");
  const size_t colon = body.find(':', dots == std::string_view::npos ? 0 : dots);
  if (dots == std::string_view::npos || colon == std::string_view::npos) {
    fail(path, fmt::format("{}, got \"{}:{}\"", usage, kind, body));
  }
  std::string_view count = body.substr(colon + 1);
  RangeSpec r;
  if (const size_t c2 = count.find(':'); c2 != std::string_view::npos) {
    if (count.substr(c2 + 1) != "int") {
      fail(path,
           fmt::format("expected \":int\" after the count, got \":{}\"", count.substr(c2 + 1)));
    }
    r.whole = true;
    count = count.substr(0, c2);
  }
  const auto a = parse_endpoint(body.substr(0, dots));
  const auto b = parse_endpoint(body.substr(dots + 2, colon - dots - 2));
  if (!a || !b)
    fail(path, fmt::format("{}; A and B must be numbers, got \"{}:{}\"", usage, kind, body));
  const std::optional<double> n = parse_number(trim(count));
  if (!n || *n != std::floor(*n) || *n < 2 || *n > kMaxRangePoints) {
    fail(path, fmt::format("expected a whole number of points N from 2 to {}, got \"{}\"",
                           kMaxRangePoints, count));
  }
  r.a = *a;
  r.b = *b;
  r.n = static_cast<size_t>(*n);
  return r;
}

void check_range(std::string_view kind, const RangeSpec& r, const std::string& path) {
  if (r.a.suffix != r.b.suffix) {
    fail(path, fmt::format("A and B must have the same unit, got \"{}\" and \"{}\"", r.a.suffix,
                           r.b.suffix));
  }
  if (kind == "log" && (r.a.value <= 0 || r.b.value <= 0)) {
    fail(path, fmt::format("expected log:A..B:N with A > 0 and B > 0, got A = {}, B = {}",
                           format_number(r.a.value), format_number(r.b.value)));
  }
  if (r.a.value == r.b.value) {
    fail(path,
         fmt::format("A and B are both {}; give two different endpoints (or a list of one value)",
                     format_number(r.a.value)));
  }
}

// Rounds to 12 significant digits, or to a whole number.
double tidy(double v, bool whole) {
  if (whole) return std::round(v);
  return *parse_number(fmt::format("{:.12g}", v));
}

Json range_value(double v, const std::string& suffix) {
  if (!suffix.empty()) return Json(format_number(v) + suffix);
  if (v == std::floor(v) && std::fabs(v) < 9.0e15) return Json(static_cast<int64_t>(v));
  return Json(v);
}

std::vector<Json> parse_range(std::string_view kind, std::string_view body,
                              const std::string& path) {
  const RangeSpec r = parse_range_spec(kind, body, path);
  check_range(kind, r, path);
  std::vector<Json> values;
  const double last = static_cast<double>(r.n - 1);
  for (size_t i = 0; i < r.n; ++i) {
    const double f = static_cast<double>(i) / last;
    double v = kind == "lin" ? r.a.value + (r.b.value - r.a.value) * f
                             : r.a.value * std::pow(r.b.value / r.a.value, f);
    if (i == 0) v = r.a.value;
    if (i + 1 == r.n) v = r.b.value;
    add_distinct(values, range_value(tidy(v, r.whole), r.a.suffix), path);
  }
  return values;
}

}  // namespace

Axis parse_vary(std::string_view arg) {
  const size_t eq = arg.find('=');
  if (eq == std::string_view::npos) {
    fail("", fmt::format("expected PATH=VALUES (e.g. cluster.chips=4096,8192 or "
                         "horizon=lin:1d..7d:4), got \"{}\"",
                         arg));
  }
  Axis axis{std::string(trim(arg.substr(0, eq))), std::string(trim(arg.substr(eq + 1))), {}};
  if (axis.path.empty())
    fail("", fmt::format("expected a scenario key before '=', got \"{}\"", arg));
  if (axis.spec.empty()) fail(axis.path, "expected values after '=', got nothing");
  const std::string_view spec = axis.spec;
  if (spec.starts_with("lin:") || spec.starts_with("log:")) {
    axis.values = parse_range(spec.substr(0, 3), spec.substr(4), axis.path);
  } else {
    axis.values = parse_list(spec, axis.path);
  }
  return axis;
}

std::string value_text(const nlohmann::json& value) {
  return value.is_string() ? value.get<std::string>() : value.dump();
}

Grid::Grid(std::vector<Axis> axes) : axes_(std::move(axes)) {
  std::set<std::string> paths;
  for (const Axis& a : axes_) {
    if (a.path == "seed") {
      fail(a.path,
           "the sweep chooses the seeds (see --seeds); set the first one with --set seed=N");
    }
    if (!paths.insert(a.path).second)
      fail(a.path, "this key is varied twice; give one --vary per key");
    if (a.values.empty()) fail(a.path, "expected at least one value");
    if (size_ > kMaxPoints / a.values.size()) {
      fail(a.path, fmt::format("the grid would have more than {} points", kMaxPoints));
    }
    size_ *= a.values.size();
  }
}

const nlohmann::json& Grid::value(size_t point, size_t axis) const {
  size_t stride = 1;
  for (size_t a = axes_.size(); a-- > axis + 1;) stride *= axes_[a].values.size();
  return axes_[axis].values[(point / stride) % axes_[axis].values.size()];
}

std::vector<std::string> Grid::value_texts(size_t point) const {
  std::vector<std::string> out;
  for (size_t a = 0; a < axes_.size(); ++a) out.push_back(value_text(value(point, a)));
  return out;
}

std::string Grid::describe(size_t point) const {
  if (axes_.empty()) return "(no --vary)";
  std::string out;
  for (size_t a = 0; a < axes_.size(); ++a) {
    out += fmt::format("{}{}={}", a == 0 ? "" : ", ", axes_[a].path, value_text(value(point, a)));
  }
  return out;
}

void Grid::apply(size_t point, nlohmann::json& doc) const {
  for (size_t a = 0; a < axes_.size(); ++a) {
    try {
      scenario::apply_override(doc, axes_[a].path + "=" + value(point, a).dump());
    } catch (const scenario::ScenarioError& e) {
      throw scenario::ScenarioError(kSource, e.path(), e.message());
    }
  }
}

}  // namespace goodsim::app::sweep
