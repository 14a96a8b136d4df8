// Property tests: randomly generated small scenarios, every registered policy
// with its default parameters. The runner already aborts if the chip-time
// categories do not sum to chips x run time; here the other invariants.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include "sim/core/rng.h"
#include "tests/support/scenarios.h"

namespace goodsim::models {
namespace {

nlohmann::json random_scenario(core::Rng& rng, const Registry& registry) {
  const int slices = 4 + static_cast<int>(rng.below(13));  // default learners: 4
  const int spares = static_cast<int>(rng.below(3));
  const int hosts = 1 + static_cast<int>(rng.below(4));
  nlohmann::json doc = testing::small_scenario("3d", "", "", "5m", slices + spares, hosts);
  doc["cluster"]["spare_slices"] = spares;
  if (rng.below(2) == 1) {
    doc["cluster"]["sites"] = {{{"name", "a"}}, {{"name", "b"}}};
    doc["cluster"]["links"] = {{{"from", "a"}, {"to", "b"}, {"bandwidth", "100Gbps"}}};
  }
  const double mtbf_h = 2 + 200 * rng.uniform01();
  const double repair_min = 120 * rng.uniform01();
  doc["failures"] = {{{"type", "exponential_failures"},
                      {"mtbf", fmt::format("{}h", mtbf_h)},
                      {"repair_time", fmt::format("{}m", repair_min)}}};
  doc["policies"] = nlohmann::json::array();
  for (const std::string& type : registry.types(ModelKind::kPolicy)) {
    doc["policies"].push_back({{"type", type}});
  }
  return doc;
}

void check_invariants(const output::PolicyResult& p) {
  INFO("policy " << p.name);
  CHECK(p.uptime >= 0.0);
  CHECK(p.uptime <= 1.0);
  CHECK(p.goodput >= 0.0);
  CHECK(p.goodput <= 1.0);
  CHECK(p.downtime_s >= 0.0);
  CHECK(p.longest_outage_s <= p.downtime_s + 1e-9);
  for (const auto& [category, chip_seconds] : p.badput) CHECK(chip_seconds >= 0.0);
  double last_time = -1, last_tokens = 0;
  for (const output::TimeseriesRow& row : p.series) {
    CHECK(row.time_s > last_time);
    // data_parallel's default perfect checkpoints never roll back; elastic
    // jobs may (a fallback restart below min_slices).
    if (p.type == "data_parallel") CHECK(row.tokens >= last_tokens);
    CHECK(row.tokens >= 0.0);
    last_tokens = row.tokens;
    CHECK(row.goodput >= 0.0);
    CHECK(row.goodput <= 1.0 + 1e-12);
    last_time = row.time_s;
  }
}

TEST_CASE("invariants hold for every policy on random small scenarios", "[models][property]") {
  const Registry registry = builtin_registry();
  core::Rng rng = core::Rng::for_stream(2024, "property-scenarios");
  for (int i = 0; i < 40; ++i) {
    const nlohmann::json doc = random_scenario(rng, registry);
    INFO("scenario " << i << ": " << doc.dump());
    const auto prepared = testing::prepare_doc(doc);
    const output::RunResult run = run_scenario(prepared, static_cast<uint64_t>(i + 1), nullptr);
    REQUIRE(run.policies.size() == registry.types(ModelKind::kPolicy).size());
    for (const auto& p : run.policies) check_invariants(p);
    // Same failure history for all: the same failure count.
    for (const auto& p : run.policies) CHECK(p.failures == run.policies[0].failures);
  }
}

}  // namespace
}  // namespace goodsim::models
