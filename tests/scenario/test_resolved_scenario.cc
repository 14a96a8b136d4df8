// Provenance: the resolved scenario of summary.json (defaults filled in)
// reproduces the run it came from, for every shipped scenario.
#include <catch2/catch.hpp>

#include <filesystem>
#include <optional>

#include "sim/output/summary.h"
#include "sim/scenario/error.h"
#include "sim/scenario/json_file.h"
#include "sim/scenario/overrides.h"
#include "tests/support/scenarios.h"

namespace goodsim::scenario {
namespace {

TEST_CASE("defaults are written in a form that reads back to the same value", "[scenario]") {
  const nlohmann::json doc = testing::small_scenario("1d", "1y", "2h", "5m");
  const auto prepared = testing::prepare_doc(doc);
  const nlohmann::json& r = prepared.resolved;
  CHECK(r["cluster"]["spare_slices"] == 0);
  CHECK(r["seed"] == 1);
  // Absent optional objects stay absent (their absence has a meaning: perfect checkpoints).
  CHECK(!r.contains("outputs"));
  CHECK(!r["policies"][0].contains("checkpoint"));
  // A default that was a duration: a whole number of its largest exact unit.
  CHECK(r["policies"][0]["swap_time"] == "2m");
  // Reading the resolved document applies no further default.
  const auto again = testing::prepare_doc(r);
  CHECK(again.resolved == r);
  CHECK(with_defaults(doc, DefaultLog{}) == doc);
}

TEST_CASE("re-running the resolved scenario reproduces every fingerprint", "[scenario][slow]") {
  const std::filesystem::path dir = std::filesystem::path(GOODSIM_SOURCE_DIR) / "scenarios";
  size_t checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".json") continue;
    const std::string file = entry.path().string();
    INFO(file);
    // Short runs keep this test quick (defaults that depend on the horizon, like the
    // sample interval, are resolved for the shortened run); a scenario whose timeline
    // needs its own horizon keeps it.
    const nlohmann::json doc = load_json_file(file);
    nlohmann::json short_doc = doc;
    apply_override(short_doc, "horizon=6h");
    std::optional<models::PreparedScenario> shortened;
    try {
      shortened = testing::prepare_doc(short_doc, file);
    } catch (const ScenarioError&) {
    }
    const auto prepared = shortened ? std::move(*shortened) : testing::prepare_doc(doc, file);
    const output::RunResult run = models::run_scenario(prepared, 7, nullptr);
    const nlohmann::json resolved = output::summary_json(run)["resolved_scenario"];
    REQUIRE(resolved.is_object());
    CHECK(resolved["seed"] == 7);
    const auto re = testing::prepare_doc(resolved, file);
    const output::RunResult rerun = models::run_scenario(re, resolved["seed"].get<uint64_t>(), nullptr);
    REQUIRE(rerun.policies.size() == run.policies.size());
    for (size_t i = 0; i < run.policies.size(); ++i) {
      CHECK(rerun.policies[i].fingerprint == run.policies[i].fingerprint);
      CHECK(rerun.policies[i].goodput == run.policies[i].goodput);
    }
    ++checked;
  }
  CHECK(checked >= 15);
}

}  // namespace
}  // namespace goodsim::scenario
