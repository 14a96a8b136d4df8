#include "app/calibrate/target_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <sstream>

#include "app/sweep/csv.h"
#include "app/sweep/metrics.h"
#include "sim/scenario/csv_reader.h"
#include "sim/scenario/error.h"
#include "sim/scenario/input_file.h"
#include "sim/scenario/json_file.h"
#include "sim/scenario/reader.h"

namespace goodsim::app::calibrate {
namespace {

constexpr std::array<const char*, 3> kDerived = {"failures_per_day", "mean_outage_s", "ettr"};
constexpr std::array<const char*, 5> kColumns = {"set", "policy", "metric", "value", "uncertainty"};

bool known_metric(const std::string& m) {
  return sweep::metric_index(m) || std::find(kDerived.begin(), kDerived.end(), m) != kDerived.end();
}

// Checks the fields every format shares; `file`/`path` address the observation.
void check(const Observation& o, const std::string& file, const std::string& path) {
  if (!known_metric(o.metric)) {
    throw scenario::ScenarioError(
        file, path,
        fmt::format("unknown metric \"{}\"; expected one of: {}", scenario::shorten(o.metric, 60),
                    target_metric_names()));
  }
  if (o.policy.empty()) throw scenario::ScenarioError(file, path, "expected a policy name");
  if (!std::isfinite(o.value)) throw scenario::ScenarioError(file, path, "value: not finite");
  if (!(o.uncertainty >= 0) || !std::isfinite(o.uncertainty)) {
    throw scenario::ScenarioError(file, path, "uncertainty: expected a number >= 0");
  }
}

std::string read_text(const std::string& path) {
  try {
    return scenario::read_input(path, "target file");
  } catch (const scenario::ScenarioError& e) {
    throw scenario::ScenarioError(e.file(), "", "cannot read the target file: " + e.message());
  }
}

// Column index of each kColumns entry (-1: absent) from the header record.
std::array<int, 5> csv_columns(const scenario::CsvRecord& header, const std::string& file) {
  std::array<int, 5> at{-1, -1, -1, -1, -1};
  for (size_t i = 0; i < header.fields.size(); ++i) {
    const auto it = std::find(kColumns.begin(), kColumns.end(), header.fields[i]);
    if (it == kColumns.end()) {
      throw scenario::ScenarioError(
          file, fmt::format("line {}", header.line),
          fmt::format("unknown column \"{}\"; expected set, policy, metric, value, uncertainty",
                      scenario::shorten(header.fields[i], 60)));
    }
    at[static_cast<size_t>(it - kColumns.begin())] = static_cast<int>(i);
  }
  for (size_t c = 1; c < 4; ++c) {
    if (at[c] < 0) {
      throw scenario::ScenarioError(file, fmt::format("line {}", header.line),
                                    fmt::format("missing column \"{}\"", kColumns[c]));
    }
  }
  return at;
}

double csv_number(const std::string& text, const std::string& file, const std::string& where,
                  const char* column) {
  const std::optional<double> v = sweep::parse_number(text);
  if (!v) {
    throw scenario::ScenarioError(
        file, where,
        fmt::format("{}: expected a number, got \"{}\"", column, scenario::shorten(text, 60)));
  }
  return *v;
}

std::vector<Observation> read_csv_targets(const std::string& path, const std::string& text) {
  scenario::CsvText csv;
  try {
    csv = scenario::read_csv(text, {.trim_blanks = true, .comments = true});
  } catch (const scenario::CsvSyntaxError& e) {
    throw scenario::ScenarioError(path, fmt::format("line {}", e.line()), e.what());
  }
  if (csv.records.empty()) throw scenario::ScenarioError(path, "", "no header line");
  const std::array<int, 5> at = csv_columns(csv.records.front(), path);
  std::vector<Observation> out;
  for (size_t r = 1; r < csv.records.size(); ++r) {
    const scenario::CsvRecord& rec = csv.records[r];
    const std::string where = fmt::format("line {}", rec.line);
    auto field = [&](size_t c) {
      const int i = at[c];
      return i >= 0 && static_cast<size_t>(i) < rec.fields.size() ? rec.fields[i] : "";
    };
    Observation o{split_sets(field(0)),
                  field(1),
                  field(2),
                  csv_number(field(3), path, where, "value"),
                  field(4).empty() ? 0.0 : csv_number(field(4), path, where, "uncertainty"),
                  path + ":" + std::to_string(rec.line)};
    check(o, path, where);
    out.push_back(std::move(o));
  }
  return out;
}

Observation json_observation(scenario::ObjectReader& r, const std::string& path) {
  Observation o;
  const nlohmann::json& sets = r.raw("set", "--set assignments of this observation");
  if (!sets.is_null()) {
    if (!sets.is_array()) r.fail("set", "expected a list of \"path=value\" strings");
    for (const nlohmann::json& s : sets) {
      if (!s.is_string()) r.fail("set", "expected a list of \"path=value\" strings");
      o.sets.push_back(s.get<std::string>());
    }
  }
  o.policy = r.string("policy", "policy name");
  o.metric = r.string("metric", "metric name");
  o.value = r.number("value", "observed value");
  o.uncertainty = r.number("uncertainty", 0.0, "one standard deviation (0: unknown)", 0);
  r.finish();
  o.where = path + ": " + r.path();
  check(o, path, r.path());
  return o;
}

std::vector<Observation> read_json_targets(const std::string& path) {
  const nlohmann::json doc = scenario::load_json_file(path);
  scenario::ObjectReader root(doc, "", std::make_shared<const std::string>(path));
  std::vector<Observation> out;
  for (scenario::ObjectReader& r : root.object_list("observations", "the observations")) {
    out.push_back(json_observation(r, path));
  }
  root.finish();
  return out;
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

std::vector<std::string> split_sets(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string part; std::getline(in, part, ';');) {
    if (!part.empty()) out.push_back(part);
  }
  return out;
}

std::vector<Observation> read_targets(const std::string& path) {
  std::vector<Observation> out =
      ends_with(path, ".csv") ? read_csv_targets(path, read_text(path)) : read_json_targets(path);
  if (out.empty()) throw scenario::ScenarioError(path, "", "no observations");
  return out;
}

std::string target_metric_names() {
  std::string names = sweep::metric_names();
  for (const char* d : kDerived) names += std::string(", ") + d;
  return names;
}

std::optional<double> metric_value(const output::PolicyResult& p, const std::string& metric,
                                   double horizon_s) {
  if (metric == kDerived[0]) return static_cast<double>(p.failures) / (horizon_s / 86400.0);
  if (metric == kDerived[1]) {
    return p.outages == 0 ? 0.0 : p.downtime_s / static_cast<double>(p.outages);
  }
  if (metric == kDerived[2]) return p.ettr;
  return sweep::metric_values(p)[*sweep::metric_index(metric)];
}

}  // namespace goodsim::app::calibrate
