// scenarios/paper-scavenging.json: scavenged capacity measured in time to a
// target loss. Sanity bound (not a tuned number): with free joins (no
// restart, no state pull) extra learners never make Decoupled DiLoCo slower
// to the target than its base, on the same failure history.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "models/runner.h"
#include "sim/scenario/json_file.h"
#include "tests/support/scenarios.h"

namespace goodsim::models {
namespace {

TEST_CASE("paper-scavenging: extra compute never slows Decoupled DiLoCo to the target",
          "[models][decoupled][scavenging]") {
  const std::string file =
      (std::filesystem::path(GOODSIM_SOURCE_DIR) / "scenarios" / "paper-scavenging.json").string();
  nlohmann::json doc = scenario::load_json_file(file);
  nlohmann::json policies = nlohmann::json::array();
  for (nlohmann::json p : doc["policies"]) {
    if (p["type"] != "decoupled_diloco") continue;
    p["rejoin_overhead"] = "0s";
    p["state_bytes"] = 0;
    policies.push_back(p);
  }
  doc["policies"] = policies;
  const auto prepared = testing::prepare_doc(doc, file);
  const output::RunResult run = run_scenario(prepared, prepared.scenario.seed, nullptr);
  REQUIRE(run.policies.size() == 4);
  REQUIRE(run.policies[0].name == "decoupled-base");
  REQUIRE(run.policies[0].time_to_target_s.has_value());
  const double base = *run.policies[0].time_to_target_s;
  for (size_t i = 1; i < run.policies.size(); ++i) {
    INFO(run.policies[i].name);
    REQUIRE(run.policies[i].time_to_target_s.has_value());
    CHECK(*run.policies[i].time_to_target_s <= base);
  }
}

}  // namespace
}  // namespace goodsim::models
