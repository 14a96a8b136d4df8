#include "app/diff/diff_input.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include <nlohmann/json.hpp>

#include "app/sweep/baseline.h"
#include "app/sweep/csv.h"
#include "sim/scenario/error.h"
#include "sim/scenario/input_file.h"
#include "sim/scenario/json_file.h"

namespace goodsim::app::diff {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using scenario::ScenarioError;
using sweep::kMetricCount;
using sweep::kMetrics;

const json& member(const json& doc, const std::string& file, const char* key, const char* what) {
  if (!doc.is_object() || !doc.contains(key)) {
    throw ScenarioError(file, key, fmt::format("missing: expected {}", what));
  }
  return doc[key];
}

// A policy's value of metric `name` in summary.json: a number at the top level, or for
// the cost metrics of a sweep row (cost, cost_per_billion_tokens, cost_<category>) the
// matching field of the policy's "cost" object (docs/metrics.md).
std::optional<double> summary_value(const json& p, const std::string& name) {
  if (p.contains(name)) {
    return p[name].is_number() ? std::optional<double>(p[name].get<double>()) : std::nullopt;
  }
  if (name.rfind("cost", 0) != 0 || !p.contains("cost") || !p["cost"].is_object()) {
    return std::nullopt;
  }
  const json& cost = p["cost"];
  const std::string key = name == "cost" ? "total" : name.substr(5);
  for (const json* where : {&cost, cost.contains("by_category") ? &cost["by_category"] : nullptr}) {
    if (where && where->is_object() && where->contains(key) && (*where)[key].is_number()) {
      return (*where)[key].get<double>();
    }
  }
  return std::nullopt;
}

// Adds one run's summary.json (one seed) to `rows` (keyed by group and policy).
void add_summary(const std::string& file, std::vector<SideRow>& rows, std::string& version) {
  const json doc = scenario::load_json_file(file);
  const json& name = member(doc, file, "scenario", "the scenario's name");
  const json& seed = member(doc, file, "seed", "the run's seed");
  const json& policies = member(doc, file, "policies", "a list of policies");
  if (!name.is_string() || !seed.is_number_unsigned() || !policies.is_array()) {
    throw ScenarioError(file, "", "not a goodsim summary.json (scenario, seed or policies)");
  }
  if (doc.contains("version") && doc["version"].is_string()) version = doc["version"];
  for (size_t i = 0; i < policies.size(); ++i) {
    const json& p = policies[i];
    if (!p.is_object() || !p.contains("name") || !p["name"].is_string()) {
      throw ScenarioError(file, fmt::format("policies.{}", i), "expected an object with a name");
    }
    auto it = std::find_if(rows.begin(), rows.end(), [&](const SideRow& r) {
      return r.group == name.get<std::string>() && r.policy == p["name"].get<std::string>();
    });
    if (it == rows.end()) it = rows.insert(rows.end(), SideRow{name, p["name"], {}});
    for (size_t m = 0; m < kMetricCount; ++m) {
      MetricSample& s = it->metrics[m] ? *it->metrics[m] : it->metrics[m].emplace();
      s.seeds.push_back(seed.get<uint64_t>());
      s.values.push_back(summary_value(p, std::string(kMetrics[m].name)));
    }
  }
}

Side load_runs(const fs::path& dir) {
  Side side{dir.string(), "runs", "", {}};
  std::vector<fs::path> seeds;
  for (const fs::directory_entry& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (e.is_directory() && name.rfind("seed-", 0) == 0 && fs::exists(e.path() / "summary.json"))
      seeds.push_back(e.path() / "summary.json");
  }
  std::sort(seeds.begin(), seeds.end());
  for (const fs::path& f : seeds) add_summary(f.string(), side.rows, side.version);
  return side;
}

// The group of a sweep row: "path=value, path=value" (or the scenario's one point).
std::string sweep_group(const std::vector<std::string>& header, const sweep::CsvRecord& rec,
                        size_t axes_end) {
  std::string group;
  for (size_t c = 1; c < axes_end; ++c) {
    group += (group.empty() ? "" : ", ") + header[c] + "=" + rec.fields[c];
  }
  return group.empty() ? "(one point)" : group;
}

Side load_sweep(const fs::path& dir) {
  const std::string file = (dir / "results.csv").string();
  Side side{dir.string(), "sweep", "", {}};
  if (fs::exists(dir / "sweep.json")) {
    const json def = scenario::load_json_file((dir / "sweep.json").string());
    if (def.is_object() && def.contains("version") && def["version"].is_string())
      side.version = def["version"];
  }
  size_t complete = 0;
  const std::vector<sweep::CsvRecord> records =
      sweep::parse_csv(scenario::read_input(file, "results file"), complete);
  if (records.empty()) throw ScenarioError(file, "", "empty: no header and no rows");
  const std::vector<std::string>& header = records[0].fields;
  const auto col = [&](const char* name) -> size_t {
    const auto it = std::find(header.begin(), header.end(), name);
    if (it == header.end())
      throw ScenarioError(file, "", fmt::format("line 1: no column \"{}\"", name));
    return static_cast<size_t>(it - header.begin());
  };
  const size_t seed_col = col("seed"), policy_col = col("policy");
  std::array<std::optional<size_t>, kMetricCount> metric_col{};
  for (size_t c = 0; c < header.size(); ++c) {
    if (const auto m = sweep::metric_index(header[c])) metric_col[*m] = c;
  }
  std::map<std::pair<std::string, std::string>, size_t> index;
  for (size_t r = 1; r < records.size(); ++r) {
    const sweep::CsvRecord& rec = records[r];
    const auto seed = sweep::parse_number(rec.fields.size() == header.size()
                                              ? rec.fields[seed_col] : std::string());
    if (!seed || *seed < 0) {
      throw ScenarioError(file, "", fmt::format("line {}: expected {} fields with a seed",
                                                rec.line, header.size()));
    }
    const auto key = std::pair{sweep_group(header, rec, seed_col), rec.fields[policy_col]};
    if (!index.count(key)) {
      index[key] = side.rows.size();
      side.rows.push_back({key.first, key.second, {}});
    }
    SideRow& row = side.rows[index[key]];
    for (size_t m = 0; m < kMetricCount; ++m) {
      if (!metric_col[m]) continue;
      MetricSample& s = row.metrics[m] ? *row.metrics[m] : row.metrics[m].emplace();
      s.seeds.push_back(static_cast<uint64_t>(*seed));
      s.values.push_back(sweep::parse_number(rec.fields[*metric_col[m]]));
    }
  }
  return side;
}

Side load_baseline(const std::string& file) {
  const sweep::Baseline b = sweep::read_baseline(file);
  Side side{file, "baseline", b.version, {}};
  for (const sweep::BaselineScenario& s : b.scenarios) {
    for (const sweep::BaselinePolicy& p : s.policies) {
      SideRow row{s.name, p.name, {}};
      for (const sweep::BaselineMetric& bm : p.metrics) {
        MetricSample& sample = row.metrics[bm.metric].emplace();
        if (!bm.values.empty() && s.first_seed) {
          for (size_t k = 0; k < bm.values.size(); ++k) {
            sample.seeds.push_back(*s.first_seed + k);
            sample.values.emplace_back(bm.values[k]);
          }
        } else {
          sample.recorded = sweep::Estimate{bm.n, bm.mean, bm.n < 2 ? 0.0 : bm.sd, 0};
        }
      }
      side.rows.push_back(std::move(row));
    }
  }
  return side;
}

bool is_baseline_file(const std::string& file) {
  const json doc = scenario::load_json_file(file);
  return doc.is_object() && doc.contains("format") && doc["format"].is_string() &&
         doc["format"].get<std::string>().rfind("goodsim-baseline/", 0) == 0;
}

}  // namespace

bool MetricSample::present() const {
  if (recorded) return recorded->n > 0;
  return std::any_of(values.begin(), values.end(), [](const auto& v) { return v.has_value(); });
}

sweep::Estimate MetricSample::estimate() const {
  return recorded ? *recorded : sweep::estimate(sweep::present(values));
}

Side load_side(const std::string& path) {
  const fs::path p(path);
  std::error_code ec;
  if (fs::is_regular_file(p, ec)) {
    if (is_baseline_file(path)) return load_baseline(path);
    Side side{path, "run", "", {}};
    add_summary(path, side.rows, side.version);
    return side;
  }
  if (!fs::is_directory(p, ec)) {
    throw ScenarioError(path, "", "no such file or directory");
  }
  if (fs::exists(p / "summary.json")) {
    Side side{path, "run", "", {}};
    add_summary((p / "summary.json").string(), side.rows, side.version);
    return side;
  }
  if (fs::exists(p / "results.csv")) return load_sweep(p);
  Side runs = load_runs(p);
  if (!runs.rows.empty()) return runs;
  throw ScenarioError(path, "",
                      "not a run directory (summary.json), a run --seeds directory "
                      "(seed-*/summary.json), a sweep directory (results.csv) or a baseline "
                      "file of goodsim check");
}

}  // namespace goodsim::app::diff
