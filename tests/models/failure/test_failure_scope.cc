// Failure scope (all / allocated / running), the repair pipeline and lemon
// cleaning of exponential_failures.
#include <catch2/catch.hpp>

#include <cmath>

#include "models/failure/exponential_failures.h"
#include "models/failure/repair_pipeline.h"
#include "tests/support/injector_harness.h"
#include "sim/scenario/json_file.h"
#include "tests/support/scenarios.h"

namespace goodsim::models::failure {
namespace {

// Standard error of a Poisson count's ratio a / b.
double ratio_se(double a, double b) { return (a / b) * std::sqrt(1 / a + 1 / b); }

TEST_CASE("repair pipeline: hand-computed stages", "[models][repair]") {
  RepairPipeline p = RepairPipeline::single(core::Distribution::fixed(60));
  core::Rng rng(7);
  CHECK(p.draw(rng).time == core::Duration::seconds(60));
  const nlohmann::json doc = {{"repair", {{{"name", "auto"}, {"time", "2h"}, {"success", 0.2}},
                                          {{"name", "manual"}, {"time", "2d"}}}}};
  scenario::ObjectReader r(doc, "failures.0");
  p = RepairPipeline::from_json(r, core::Duration::hours(1));
  r.finish();
  REQUIRE(p.stages().size() == 2);
  // Every repair is 2 h (auto succeeded) or 2 h + 2 d (escalated).
  const int n = 20000;
  int automatic = 0;
  for (int i = 0; i < n; ++i) {
    const RepairPipeline::Outcome o = p.draw(rng);
    if (o.stage == 0) {
      CHECK(o.time == core::Duration::hours(2));
      ++automatic;
    } else {
      CHECK(o.time == core::Duration::hours(2) + core::Duration::days(2));
    }
  }
  const double se = std::sqrt(0.2 * 0.8 / n);
  CHECK(std::abs(automatic / double(n) - 0.2) < 3 * se);
}

TEST_CASE("repair pipeline: bad stage lists are rejected", "[models][repair]") {
  const auto reject = [](const nlohmann::json& doc, const std::string& what) {
    scenario::ObjectReader r(doc, "failures.0");
    CHECK_THROWS_WITH(RepairPipeline::from_json(r, core::Duration::hours(1)),
                      Catch::Contains(what));
  };
  reject({{"repair", {{{"time", "1h"}, {"success", 0.5}}}}}, "last stage must succeed");
  reject({{"repair", {{{"time", "1h"}, {"success", 1.5}}}}}, "success");
  reject({{"repair", {{{"time", "1h"}}}}, {"repair_time", "1h"}}, "not both");
}

// Every chip a lemon failing at 10 / mtbf; a repair cleans it with q = 0.5.
// A lemon's failures form a Poisson process of rate 10 / mtbf while it is up
// (repairs take 1 s, negligible), each cleaning it with probability q, so it
// is clean by time T with probability 1 - exp(-q 10 T / mtbf). A cleaned chip
// fails at 1 / mtbf.
TEST_CASE("lemon cleaning: clean fraction and rate after cleaning", "[models][repair][stat]") {
  const uint32_t chips = 2000;
  ExponentialFailuresConfig c;
  c.mtbf = core::Duration::seconds(1000);
  c.repair = RepairPipeline::single(core::Distribution::fixed(1));
  c.lemon_fraction = 1.0;
  c.lemon_multiplier = 10;
  c.lemon_clean = 0.5;
  testing::InjectorHarness h(chips, 3);
  ExponentialFailures inj(c, "failures.lemons");
  h.run(inj, 100);
  const double p = 1 - std::exp(-0.5 * 10 * 100 / 1000.0);
  const double frac = inj.lemons_cleaned() / double(chips);
  CHECK(std::abs(frac - p) < 3 * std::sqrt(p * (1 - p) / chips));

  // q = 1: each lemon is clean after its first repair; over a long horizon the
  // rate approaches the normal one: failures ~ chips (first) + chips T / mtbf.
  c.lemon_clean = 1.0;
  testing::InjectorHarness h2(chips, 4);
  ExponentialFailures inj2(c, "failures.lemons");
  h2.run(inj2, 20000);
  CHECK(inj2.lemons_cleaned() == chips);
  const double expected = chips * (1 + (20000 - 100.0) / 1000);
  CHECK(std::abs(inj2.failures() - expected) < 4 * std::sqrt(expected));
}

nlohmann::json scoped_doc(const std::string& scope, int spare_slices) {
  nlohmann::json doc = testing::small_scenario("3000h", "64h", "1s", "30m", 4 + spare_slices, 4);
  doc["cluster"]["spare_slices"] = spare_slices;
  doc["failures"][0]["scope"] = scope;
  return doc;
}

// 4 member slices of 16 chips + 4 spares. With `allocated`, spares do not
// fail: the failure count is half that of `all`.
TEST_CASE("scope allocated: spares do not fail", "[models][scope][stat]") {
  const auto all = run_policy(testing::prepare_doc(scoped_doc("all", 4)), 0, 1, nullptr);
  const auto alloc = run_policy(testing::prepare_doc(scoped_doc("allocated", 4)), 0, 1, nullptr);
  const double ratio = double(alloc.failures) / double(all.failures);
  INFO(alloc.failures << " / " << all.failures);
  CHECK(std::abs(ratio - 0.5) < 3 * ratio_se(double(alloc.failures), double(all.failures)));
}

// A job down half the time (restart R with L R = 1, absorbing: uptime 1/2)
// sees half the failures with `running`.
TEST_CASE("scope running: a job down half the time sees half the failures",
          "[models][scope][stat]") {
  nlohmann::json doc = scoped_doc("all", 0);
  doc["policies"][0]["restart_time"] = "1h";  // L = 64 chips / 64 h = 1 / h
  const auto all = run_policy(testing::prepare_doc(doc), 0, 1, nullptr);
  doc["failures"][0]["scope"] = "running";
  const auto running = run_policy(testing::prepare_doc(doc), 0, 1, nullptr);
  CHECK(all.uptime == Approx(0.5).epsilon(0.05));
  CHECK(running.uptime == Approx(0.5).epsilon(0.05));
  const double ratio = double(running.failures) / double(all.failures);
  INFO(running.failures << " / " << all.failures);
  CHECK(std::abs(ratio - running.uptime) <
        3 * ratio_se(double(running.failures), double(all.failures)));
}

// Common random numbers: with `allocated` and no spares every slice is in use
// by both policies, so both face exactly the same failures.
TEST_CASE("scoped injection keeps common random numbers across policies", "[models][scope]") {
  nlohmann::json doc = scoped_doc("allocated", 0);
  doc["horizon"] = "300h";
  doc["policies"].push_back({{"name", "e"}, {"type", "elastic_data_parallel"}});
  const auto prepared = testing::prepare_doc(doc);
  const auto dp = run_policy(prepared, 0, 5, nullptr);
  const auto el = run_policy(prepared, 1, 5, nullptr);
  REQUIRE(dp.failures > 100);
  CHECK(dp.failures == el.failures);
  // Same seed, same run: deterministic.
  CHECK(run_policy(prepared, 1, 5, nullptr).fingerprint == el.fingerprint);
}

// scenarios/airesim-default.json without bad servers: failures only while the
// job computes, at L = 4096 / 100 d; each costs R = 20 min (standby swaps and
// host selections overlap the recovery). Uptime (ETTR) = 1 / (1 + L R).
TEST_CASE("airesim-default: ETTR matches 1 / (1 + lambda R) within 1%", "[models][scope][stat]") {
  const std::string path = std::string(GOODSIM_SOURCE_DIR) + "/scenarios/airesim-default.json";
  nlohmann::json doc = scenario::load_json_file(path);
  doc["failures"][0]["lemon_fraction"] = 0;
  const auto prepared = testing::prepare_doc(doc, path);
  const double rate = 4096 / (100 * 1440.0), expected = 1 / (1 + rate * 20);
  double sum = 0;
  for (uint64_t seed = 1; seed <= 3; ++seed) sum += run_policy(prepared, 0, seed, nullptr).uptime;
  INFO("mean ETTR " << sum / 3 << ", closed form " << expected);
  CHECK(std::abs(sum / 3 - expected) < 0.01 * expected);
}

}  // namespace
}  // namespace goodsim::models::failure
