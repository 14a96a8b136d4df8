// libFuzzer target: the scenario loader, then a clamped run of what it accepts.
//
// Input: the bytes of a scenario file. Every input must end in a ScenarioError (bad input,
// or a resource limit) or in a run whose books balance: a GOODSIM_CHECK abort, a sanitizer
// report, an uncaught exception or a slow input (libFuzzer's -timeout) is a finding. Runs
// are clamped by small resource limits so that each input takes milliseconds.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "models/registry.h"
#include "models/resource_estimate.h"
#include "models/runner.h"
#include "sim/scenario/error.h"
#include "sim/scenario/json_file.h"

namespace {

constexpr goodsim::models::ResourceLimits kClamp{2e4, 64.0 * (1 << 20)};

void require(bool ok) {
  if (!ok) std::abort();
}

// Metrics a run reports must be numbers in range (the ledger invariant is checked by the
// runner itself).
void check_result(const goodsim::output::RunResult& run) {
  for (const auto& p : run.policies) {
    require(p.goodput >= 0 && p.goodput <= 1);
    require(p.uptime >= 0 && p.uptime <= 1);
    require(std::isfinite(p.tokens) && p.tokens >= 0);
    require(!p.final_loss || std::isfinite(*p.final_loss));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const goodsim::models::Registry registry = goodsim::models::builtin_registry();
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const nlohmann::json doc = goodsim::scenario::parse_json_text(text, "fuzz.json");
    goodsim::models::PreparedScenario prepared =
        goodsim::models::prepare(doc, "fuzz.json", registry);
    goodsim::models::enforce_limits(prepared, goodsim::models::estimate_resources(prepared),
                                    kClamp);
    check_result(goodsim::models::run_scenario(prepared, prepared.scenario.seed, nullptr));
  } catch (const goodsim::scenario::ScenarioError&) {
    // Rejected with a message: the expected outcome for most inputs.
  }
  return 0;
}
