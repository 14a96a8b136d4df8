// Runs a goodsim scenario from C++ and prints one line per policy:
//   NAME TYPE GOODPUT FINGERPRINT
// with the scenario's own seed, exactly as `goodsim run SCENARIO` would.
// Usage: run_scenario SCENARIO.json
#include <cstdio>
#include <exception>

#include "models/registry.h"
#include "models/runner.h"
#include "sim/core/version.h"
#include "sim/scenario/error.h"
#include "sim/scenario/json_file.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s SCENARIO.json\n", argv[0]);
    return 2;
  }
  namespace models = goodsim::models;
  try {
    const nlohmann::json doc = goodsim::scenario::load_json_file(argv[1]);
    const models::PreparedScenario prepared =
        models::prepare(doc, argv[1], models::builtin_registry());
    const goodsim::output::RunResult run =
        models::run_scenario(prepared, prepared.scenario.seed, nullptr);
    std::printf("goodsim %s: %s\n", goodsim::core::kVersion, run.scenario.c_str());
    for (const goodsim::output::PolicyResult& p : run.policies) {
      std::printf("%s %s %.6f %016llx\n", p.name.c_str(), p.type.c_str(), p.goodput,
                  static_cast<unsigned long long>(p.fingerprint));
    }
  } catch (const goodsim::scenario::ScenarioError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
