// Shared checks for the stochastic failure injectors, through whole runs:
// same seed -> same summary, another seed -> another history, every policy of
// a run faces the same failures, causes reach summary.json, and the config
// parsers document themselves in describe mode.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "models/failure/cause_mix.h"
#include "sim/output/summary.h"
#include "sim/scenario/error.h"
#include "tests/support/scenarios.h"

namespace goodsim::models {
namespace {

using nlohmann::json;

std::vector<json> injectors() {
  return {
      {{"type", "exponential_failures"}, {"mtbf", "30d"}, {"lemon_fraction", 0.1},
       {"lemon_multiplier", 3}, {"causes", "llama3"},
       {"repair_time", {{"dist", "lognormal"}, {"mean", "1h"}, {"sigma", 1}}}},
      {{"type", "weibull_failures"}, {"shape", 0.7}, {"mtbf", "30d"}, {"lemon_fraction", 0.05},
       {"causes", {{"gpu", 3}, {"software", 1}}},
       {"repair_time", {{"dist", "exp_weibull"}, {"shape", 1.5}, {"scale", "1h"}, {"alpha", 0.5}}}},
      {{"type", "domain_failures"}, {"domain", "host"}, {"mtbf", "20d"},
       {"causes", {{"power", 0.5}, {"network", 0.3}, {"cooling", 0.2}}},
       {"repair_time", {{"dist", "weibull"}, {"shape", 0.8}, {"mean", "2h"}}}},
      {{"type", "planned_maintenance"}, {"domain", "slice"}, {"interval", "1d"},
       {"jitter", "2h"}, {"duration", {{"dist", "uniform"}, {"min", "1h"}, {"max", "3h"}}}},
  };
}

json doc_with(const json& injector) {
  json doc = testing::small_scenario("20d", "", "", "5m");
  doc["failures"] = json::array({injector});
  doc["policies"].push_back(
      {{"name", "dp-slow"}, {"type", "data_parallel"}, {"restart_time", "30m"}});
  return doc;
}

TEST_CASE("failure injectors are deterministic per seed and common to all policies",
          "[models][failure][conformance]") {
  for (const json& inj : injectors()) {
    INFO(inj.dump());
    const auto prepared = testing::prepare_doc(doc_with(inj));
    const auto a = output::summary_json(run_scenario(prepared, 11, nullptr));
    const auto b = output::summary_json(run_scenario(prepared, 11, nullptr));
    const auto c = output::summary_json(run_scenario(prepared, 12, nullptr));
    CHECK(a.dump() == b.dump());
    CHECK(a["policies"][0]["fingerprint"] != c["policies"][0]["fingerprint"]);
    const json& p0 = a["policies"][0];
    const json& p1 = a["policies"][1];
    CHECK(p0["failures"].get<uint64_t>() > 0);
    CHECK(p0["failures"] == p1["failures"]);
    CHECK(p0["failure_causes"] == p1["failure_causes"]);
    uint64_t by_cause = 0;
    for (const auto& [cause, n] : p0["failure_causes"].items()) by_cause += n.get<uint64_t>();
    CHECK(by_cause == p0["failures"].get<uint64_t>());
  }
}

TEST_CASE("causes reach summary.json by name", "[models][failure][conformance]") {
  const auto prepared = testing::prepare_doc(doc_with(injectors()[3]));
  const auto s = output::summary_json(run_scenario(prepared, 1, nullptr));
  const json& causes = s["policies"][0]["failure_causes"];
  CHECK(causes.contains("planned"));
  CHECK(causes["planned"].get<uint64_t>() == s["policies"][0]["failures"].get<uint64_t>());
}

TEST_CASE("failure injectors document their parameters", "[models][failure][conformance]") {
  const Registry registry = builtin_registry();
  const std::vector<std::pair<std::string, std::vector<std::string>>> expected = {
      {"exponential_failures", {"mtbf", "repair_time", "lemon_fraction", "lemon_multiplier", "causes"}},
      {"weibull_failures", {"shape", "scale", "mtbf", "initial_age", "repair_time", "causes"}},
      {"domain_failures", {"domain", "mtbf", "repair_time", "causes"}},
      {"planned_maintenance", {"domain", "interval", "start", "jitter", "end", "units_per_window",
                               "order", "duration", "causes"}},
  };
  for (const auto& [type, keys] : expected) {
    INFO(type);
    const ModelInfo* m = registry.find(ModelKind::kFailure, type);
    REQUIRE(m != nullptr);
    scenario::ObjectReader r = scenario::ObjectReader::describe();
    CHECK_NOTHROW(m->parse_failure(r, ParseContext{}));
    for (const std::string& key : keys) {
      INFO(key);
      CHECK(std::any_of(r.docs().begin(), r.docs().end(),
                        [&](const scenario::ParamDoc& d) { return d.key == key; }));
    }
  }
}

}  // namespace
}  // namespace goodsim::models
