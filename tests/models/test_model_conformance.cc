// Shared checks for every registered straggler model and policy, through whole
// runs of the example config each one registers (models/registry.h,
// ModelExamples): a run completes (the engine aborts on an event scheduled in
// the past, the runner on a broken ledger), the same seed gives the same
// summary and fingerprints, and every policy's chip-seconds add up to chips x
// horizon. A new model is tested by registering it; one registered without an
// example fails here. (Failure injectors: test_failure_conformance.cc.)
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "models/registry.h"
#include "sim/output/summary.h"
#include "tests/support/scenarios.h"

namespace goodsim::models {
namespace {

using nlohmann::json;

json example_entry(const ModelInfo& m) {
  json entry = json::parse(m.examples.valid);
  entry["type"] = m.type;
  return entry;
}

// The 64-chip, 20-day test scenario with a failure history, so that policies
// and straggler models meet failures and repairs.
json base_doc() {
  json doc = testing::small_scenario("20d", "10d", "2h", "5m");
  return doc;
}

json run_summary(const json& doc, uint64_t seed) {
  const auto prepared =
      testing::prepare_doc(doc, std::string(GOODSIM_SOURCE_DIR) + "/scenarios/conformance.json");
  return output::summary_json(run_scenario(prepared, seed, nullptr));
}

void check_conformance(const json& doc) {
  const json a = run_summary(doc, 7);
  const json b = run_summary(doc, 7);
  CHECK(a.dump() == b.dump());
  const double fleet = a["chips"].get<double>() * a["horizon_s"].get<double>();
  for (const json& p : a["policies"]) {
    INFO(p["name"].get<std::string>());
    // badput holds the non-productive categories; goodput is the productive share.
    double total = p["goodput"].get<double>() * fleet;
    for (const auto& [category, chip_s] : p["badput"].items()) total += chip_s.get<double>();
    CHECK(total == Approx(fleet).epsilon(1e-9));
    CHECK(p["tokens"].get<double>() > 0);
  }
}

std::vector<const ModelInfo*> models_of(const Registry& registry, ModelKind kind) {
  std::vector<const ModelInfo*> out;
  for (const ModelInfo& m : registry.models()) {
    if (m.kind == kind) out.push_back(&m);
  }
  return out;
}

TEST_CASE("every registered straggler model and policy carries an example config",
          "[models][conformance]") {
  const Registry registry = builtin_registry();
  REQUIRE(models_of(registry, ModelKind::kStraggler).size() >= 5);
  REQUIRE(models_of(registry, ModelKind::kPolicy).size() >= 4);
  for (const ModelInfo& m : registry.models()) {
    INFO(m.type);
    CHECK_FALSE(m.examples.valid.empty());
  }
}

TEST_CASE("straggler models conform: deterministic per seed, accounting adds up",
          "[models][straggler][conformance]") {
  const Registry registry = builtin_registry();
  for (const ModelInfo* m : models_of(registry, ModelKind::kStraggler)) {
    INFO(m->type);
    json doc = base_doc();
    doc["stragglers"] = json::array({example_entry(*m)});
    check_conformance(doc);
    // The model slows something: the same run without it trains more tokens.
    const json plain = base_doc();
    CHECK(run_summary(doc, 7)["policies"][0]["tokens"].get<double>() <
          run_summary(plain, 7)["policies"][0]["tokens"].get<double>());
  }
}

TEST_CASE("policies conform: deterministic per seed, accounting adds up",
          "[models][policy][conformance]") {
  const Registry registry = builtin_registry();
  for (const ModelInfo* m : models_of(registry, ModelKind::kPolicy)) {
    INFO(m->type);
    json doc = base_doc();
    json entry = example_entry(*m);
    entry["name"] = "p";
    doc["policies"] = json::array({entry});
    check_conformance(doc);
  }
}

}  // namespace
}  // namespace goodsim::models
