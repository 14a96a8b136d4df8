// Property test: random scenarios covering every registered model either run with
// balanced books and sane metrics, deterministically, or are refused with a ScenarioError
// (exit code 2); nothing else (an abort, another exception) is allowed.
//
// `make test` runs a few hundred scenarios (fewer under AddressSanitizer); `make soak` runs
// GOODSIM_SOAK_SCENARIOS of them (default 10,000) through the hidden [soak] case.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <set>
#include <string>

#include "models/resource_estimate.h"
#include "sim/output/summary.h"
#include "sim/scenario/error.h"
#include "tests/support/random_scenario.h"
#include "tests/support/scenarios.h"

#if defined(__SANITIZE_ADDRESS__)
#define GOODSIM_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GOODSIM_TEST_ASAN 1
#endif
#endif

namespace goodsim::models {
namespace {

#ifdef GOODSIM_TEST_ASAN
constexpr uint64_t kScenarios = 60;
#else
constexpr uint64_t kScenarios = 300;
#endif

// Limits well below the defaults: the generator's scenarios need far less.
constexpr ResourceLimits kLimits{2e6, 256.0 * (1 << 20)};

struct Tally {
  uint64_t ran = 0;
  uint64_t refused = 0;
  std::set<std::string> types_run;  // model types of scenarios that ran
};

bool finite_row(const output::TimeseriesRow& r) {
  return std::isfinite(r.time_s) && std::isfinite(r.tokens) && std::isfinite(r.goodput) &&
         std::isfinite(r.downtime_s) && (!r.loss || std::isfinite(*r.loss));
}

void check_policy(const output::RunResult& run, const output::PolicyResult& p) {
  INFO("policy " << p.name);
  const double capacity = static_cast<double>(run.chips) * run.horizon_s;
  double total = p.goodput * capacity;
  for (const auto& [category, chip_s] : p.badput) {
    CHECK(std::isfinite(chip_s));
    CHECK(chip_s >= 0);
    total += chip_s;
  }
  CHECK(total == Approx(capacity).epsilon(1e-9));  // the ledger itself checks it exactly
  CHECK((p.goodput >= 0 && p.goodput <= 1));
  CHECK((p.uptime >= 0 && p.uptime <= 1));
  CHECK(std::isfinite(p.downtime_s));
  CHECK(std::isfinite(p.tokens));
  CHECK((!p.final_loss || std::isfinite(*p.final_loss)));
  for (const output::TimeseriesRow& r : p.series) CHECK(finite_row(r));
}

void record_types(const nlohmann::json& doc, Tally& tally) {
  for (const char* list : {"failures", "stragglers", "policies"}) {
    for (const auto& e : doc.value(list, nlohmann::json::array())) tally.types_run.insert(e["type"]);
  }
  if (doc.contains("loss")) tally.types_run.insert(doc["loss"]["type"].get<std::string>());
}

void check_one(testing::RandomScenario& gen, uint64_t index, Tally& tally) {
  const nlohmann::json doc = gen.make(index);
  INFO("scenario " << index << ": " << doc.dump());
  std::optional<PreparedScenario> prepared;
  try {
    prepared.emplace(testing::prepare_doc(doc, "random.json"));
    enforce_limits(*prepared, estimate_resources(*prepared), kLimits);
  } catch (const scenario::ScenarioError&) {
    ++tally.refused;  // exit code 2
    return;
  }
  const output::RunResult a = run_scenario(*prepared, prepared->scenario.seed, nullptr);
  for (const output::PolicyResult& p : a.policies) check_policy(a, p);
  const output::RunResult b = run_scenario(*prepared, prepared->scenario.seed, nullptr);
  CHECK(output::summary_json(a).dump() == output::summary_json(b).dump());
  ++tally.ran;
  record_types(doc, tally);
}

// One folder per process: test runs of several builds share /tmp.
std::filesystem::path scratch_dir(const char* name) {
  const auto dir = std::filesystem::temp_directory_path() /
                   (std::string(name) + "_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir;
}

TEST_CASE("random scenarios run with balanced books or are refused", "[models][random]") {
  const auto dir = scratch_dir("goodsim_random_scenarios");
  testing::RandomScenario gen(20261201, dir);
  Tally tally;
  for (uint64_t i = 0; i < kScenarios; ++i) check_one(gen, i, tally);
  // The generator is meant to produce mostly valid scenarios, and to reach every model.
  CHECK(tally.ran > tally.refused);
  const Registry registry = builtin_registry();
  for (const ModelInfo& m : registry.models()) {
    INFO("model never ran: " << m.type);
    CHECK(tally.types_run.count(m.type) == 1);
  }
  CHECK(tally.types_run.count("scaling_law") == 1);
  CHECK(tally.types_run.count("nqm") == 1);
  std::filesystem::remove_all(dir);
}

TEST_CASE("soak: many random scenarios", "[.soak]") {
  const char* env = std::getenv("GOODSIM_SOAK_SCENARIOS");
  const uint64_t n = env != nullptr ? std::strtoull(env, nullptr, 10) : 10'000;
  const auto dir = scratch_dir("goodsim_soak");
  testing::RandomScenario gen(7, dir);
  Tally tally;
  for (uint64_t i = 0; i < n; ++i) check_one(gen, i, tally);
  WARN("soak: " << tally.ran << " ran, " << tally.refused << " refused");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace goodsim::models
