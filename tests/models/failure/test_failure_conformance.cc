// Shared checks for every registered failure injector, through whole runs of
// the example configs each one registers (models/registry.h, ModelExamples):
// no event in the past, same seed -> same summary, zero rate -> no failure,
// the accounting adds up, every policy of a run faces the same failures,
// causes reach summary.json, and the config parsers document themselves in
// describe mode. A new injector is tested by registering it.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "models/registry.h"
#include "sim/output/summary.h"
#include "sim/scenario/error.h"
#include "tests/support/scenarios.h"

namespace goodsim::models {
namespace {

using nlohmann::json;

// The registry's example entry of model `m` (docs: models/registry.h).
json example_entry(const ModelInfo& m, const std::string& config) {
  json entry = json::parse(config);
  entry["type"] = m.type;
  return entry;
}

json doc_with(const json& injector) {
  json doc = testing::small_scenario("20d", "", "", "5m");
  doc["failures"] = json::array({injector});
  doc["policies"].push_back(
      {{"name", "dp-slow"}, {"type", "data_parallel"}, {"restart_time", "30m"}});
  return doc;
}

models::PreparedScenario prepare_example(const json& doc) {
  return testing::prepare_doc(doc, std::string(GOODSIM_SOURCE_DIR) + "/scenarios/conformance.json");
}

std::vector<const ModelInfo*> failure_models(const Registry& registry) {
  std::vector<const ModelInfo*> out;
  for (const ModelInfo& m : registry.models()) {
    if (m.kind == ModelKind::kFailure) out.push_back(&m);
  }
  return out;
}

// Every policy's chip-seconds add up to chips x horizon (the ledger invariant,
// as summary.json reports it).
void check_accounting(const nlohmann::ordered_json& summary) {
  const double fleet = summary["chips"].get<double>() * summary["horizon_s"].get<double>();
  for (const auto& p : summary["policies"]) {
    // badput holds the non-productive categories; goodput is the productive share.
    double total = p["goodput"].get<double>() * fleet;
    for (const auto& [category, chip_s] : p["badput"].items()) total += chip_s.get<double>();
    CHECK(total == Approx(fleet).epsilon(1e-9));
  }
}

TEST_CASE("every registered failure injector carries its example configs",
          "[models][failure][conformance]") {
  const Registry registry = builtin_registry();
  REQUIRE(failure_models(registry).size() >= 5);
  for (const ModelInfo* m : failure_models(registry)) {
    INFO(m->type);
    CHECK_FALSE(m->examples.valid.empty());
    CHECK_FALSE(m->examples.quiet.empty());
  }
}

// The shared conformance checks, over every registered injector: a run
// completes (the engine aborts on an event scheduled in the past, the runner
// on a broken ledger), the same seed gives the same summary and fingerprints,
// every policy faces the same failures, the accounting adds up, and the
// zero-rate example causes no failure.
TEST_CASE("failure injectors are deterministic per seed and common to all policies",
          "[models][failure][conformance]") {
  const Registry registry = builtin_registry();
  for (const ModelInfo* m : failure_models(registry)) {
    INFO(m->type);
    const auto prepared = prepare_example(doc_with(example_entry(*m, m->examples.valid)));
    const auto a = output::summary_json(run_scenario(prepared, 11, nullptr));
    const auto b = output::summary_json(run_scenario(prepared, 11, nullptr));
    CHECK(a.dump() == b.dump());
    check_accounting(a);
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

TEST_CASE("failure injectors at zero rate cause no failure", "[models][failure][conformance]") {
  const Registry registry = builtin_registry();
  for (const ModelInfo* m : failure_models(registry)) {
    INFO(m->type);
    const auto prepared = prepare_example(doc_with(example_entry(*m, m->examples.quiet)));
    for (uint64_t seed : {1, 2, 3}) {
      const auto s = output::summary_json(run_scenario(prepared, seed, nullptr));
      check_accounting(s);
      for (const auto& p : s["policies"]) CHECK(p["failures"].get<uint64_t>() == 0);
    }
  }
}

TEST_CASE("stochastic failure injectors differ between seeds", "[models][failure][conformance]") {
  const Registry registry = builtin_registry();
  for (const ModelInfo* m : failure_models(registry)) {
    if (m->type == "trace_replay") continue;  // replays its file: no draws
    INFO(m->type);
    const auto prepared = prepare_example(doc_with(example_entry(*m, m->examples.valid)));
    const auto a = output::summary_json(run_scenario(prepared, 11, nullptr));
    const auto c = output::summary_json(run_scenario(prepared, 12, nullptr));
    CHECK(a["policies"][0]["fingerprint"] != c["policies"][0]["fingerprint"]);
  }
}

TEST_CASE("causes reach summary.json by name", "[models][failure][conformance]") {
  const Registry registry = builtin_registry();
  const ModelInfo* m = registry.find(ModelKind::kFailure, "planned_maintenance");
  REQUIRE(m != nullptr);
  const auto prepared = prepare_example(doc_with(example_entry(*m, m->examples.valid)));
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
