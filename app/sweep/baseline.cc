#include "app/sweep/baseline.h"

#include <fmt/format.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <set>

#include "app/sweep/metrics.h"
#include "sim/core/version.h"
#include "sim/scenario/error.h"
#include "sim/scenario/json_file.h"
#include "sim/scenario/reader.h"

namespace goodsim::app::sweep {
namespace {

using scenario::ObjectReader;
constexpr const char* kFormat = "goodsim-baseline/1";

// "values": absent, or exactly n numbers.
std::vector<double> read_values(ObjectReader& r, size_t n) {
  const nlohmann::json& v = r.raw("values", "per-seed values, in seed order");
  std::vector<double> out;
  if (v.is_null()) return out;
  if (!v.is_array() || v.size() != n) {
    r.fail("values", fmt::format("expected a list of n = {} numbers, got {}", n,
                                 scenario::describe_value(v)));
  }
  for (const nlohmann::json& x : v) {
    if (!x.is_number())
      r.fail("values", fmt::format("expected numbers, got {}", scenario::describe_value(x)));
    out.push_back(x.get<double>());
  }
  return out;
}

BaselinePolicy read_policy(ObjectReader& r) {
  BaselinePolicy p{r.string("name", "policy name"), {}};
  for (size_t m = 0; m < kMetricCount; ++m) {
    auto o = r.optional_object(kMetrics[m].name, "baseline of this metric");
    if (!o) continue;
    BaselineMetric b;
    b.metric = m;
    b.mean = o->number("mean", "mean over the baseline's seeds");
    b.sd = o->number("sd", "sample standard deviation", 0);
    b.n = static_cast<size_t>(o->count("n", "number of seeds", 1));
    b.tolerance = o->optional_number("tolerance", "absolute worsening allowed", 0);
    b.values = read_values(*o, b.n);
    p.metrics.push_back(b);
  }
  if (p.metrics.empty()) {
    r.fail("", fmt::format("expected at least one metric ({})", metric_names()));
  }
  return p;
}

BaselineScenario read_scenario(ObjectReader& r) {
  BaselineScenario s{
      r.string("name", "scenario name"), r.string("file", "", "scenario file"), {}, {}};
  if (auto seed = r.optional_count("first_seed", "first seed of the recorded runs")) {
    s.first_seed = static_cast<uint64_t>(*seed);
  }
  std::set<std::string> names;
  for (ObjectReader& p : r.object_list("policies", "policies of the scenario")) {
    s.policies.push_back(read_policy(p));
    if (!names.insert(s.policies.back().name).second) {
      p.fail("name", fmt::format("duplicate policy \"{}\"", s.policies.back().name));
    }
  }
  return s;
}

nlohmann::ordered_json metric_json(const BaselineMetric& m) {
  nlohmann::ordered_json j = {{"mean", m.mean}, {"sd", m.sd}, {"n", m.n}};
  if (m.tolerance) j["tolerance"] = *m.tolerance;
  if (!m.values.empty()) j["values"] = m.values;
  return j;
}

}  // namespace

const BaselineScenario* Baseline::find(const std::string& scenario) const {
  for (const BaselineScenario& s : scenarios) {
    if (s.name == scenario) return &s;
  }
  return nullptr;
}

const BaselinePolicy* find_policy(const BaselineScenario& s, const std::string& policy) {
  for (const BaselinePolicy& p : s.policies) {
    if (p.name == policy) return &p;
  }
  return nullptr;
}

Baseline read_baseline(const std::string& path) {
  const nlohmann::json doc = scenario::load_json_file(path);
  ObjectReader r(doc, "", std::make_shared<const std::string>(path));
  const std::string format = r.string("format", "file format");
  if (format != kFormat)
    r.fail("format", fmt::format("expected \"{}\", got \"{}\"", kFormat, format));
  Baseline b;
  b.version = r.string("version", "", "goodsim version that recorded it");
  b.seeds = static_cast<size_t>(r.count("seeds", 5, "seeds per scenario", 1, 1'000'000));
  std::set<std::string> names;
  for (ObjectReader& s : r.object_list("scenarios", "guarded scenarios")) {
    b.scenarios.push_back(read_scenario(s));
    if (!names.insert(b.scenarios.back().name).second) {
      s.fail("name", fmt::format("duplicate scenario \"{}\"", b.scenarios.back().name));
    }
  }
  r.finish();
  return b;
}

std::string baseline_text(const Baseline& b) {
  nlohmann::ordered_json scenarios = nlohmann::ordered_json::array();
  for (const BaselineScenario& s : b.scenarios) {
    nlohmann::ordered_json policies = nlohmann::ordered_json::array();
    for (const BaselinePolicy& p : s.policies) {
      nlohmann::ordered_json pj = {{"name", p.name}};
      for (const BaselineMetric& m : p.metrics)
        pj[std::string(kMetrics[m.metric].name)] = metric_json(m);
      policies.push_back(std::move(pj));
    }
    nlohmann::ordered_json sj = {{"name", s.name}, {"file", s.file}};
    if (s.first_seed) sj["first_seed"] = *s.first_seed;
    sj["policies"] = std::move(policies);
    scenarios.push_back(std::move(sj));
  }
  const nlohmann::ordered_json doc = {{"format", kFormat},
                                      {"version", b.version.empty() ? core::kVersion : b.version},
                                      {"seeds", b.seeds},
                                      {"scenarios", std::move(scenarios)}};
  return doc.dump(2) + "\n";
}

}  // namespace goodsim::app::sweep
