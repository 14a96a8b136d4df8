// Small scenario documents for tests, built in code so each test states the
// numbers it depends on.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "models/runner.h"

namespace goodsim::testing {

// A cluster of `slices` slices of 4 chips x `hosts` hosts, one DP policy, one
// exponential injector (omitted when mtbf is empty).
inline nlohmann::json small_scenario(const std::string& horizon, const std::string& mtbf,
                                     const std::string& repair, const std::string& restart,
                                     int slices = 4, int hosts = 4) {
  nlohmann::json doc = {
      {"name", "test"},
      {"seed", 1},
      {"horizon", horizon},
      {"cluster", {{"chips", 4 * hosts * slices}, {"chips_per_host", 4}, {"hosts_per_slice", hosts}}},
      {"job", {{"params", 1e9}, {"tokens_per_step", 1e6}, {"step_time", "1s"}}},
      {"failures", nlohmann::json::array()},
      {"policies", {{{"name", "dp"}, {"type", "data_parallel"}, {"restart_time", restart}}}}};
  if (!mtbf.empty()) {
    doc["failures"].push_back(
        {{"type", "exponential_failures"}, {"mtbf", mtbf}, {"repair_time", repair}});
  }
  return doc;
}

// `file` labels the document; relative file names in it (trace files) resolve
// against its directory.
inline models::PreparedScenario prepare_doc(const nlohmann::json& doc,
                                            const std::string& file = "test.json") {
  static const models::Registry registry = models::builtin_registry();
  return models::prepare(doc, file, registry);
}

}  // namespace goodsim::testing
