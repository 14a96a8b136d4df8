// The cost of a run (models/cost_model.h): hand-computed figures whose
// categories add up to the run's cost, price rules by site and generation,
// the price of WAN traffic, and the errors of a bad "cost" section.
#include <catch2/catch.hpp>

#include <string>

#include "models/cost_model.h"
#include "tests/support/scenarios.h"

namespace goodsim::models {
namespace {

// 5 slices of 4 chips, the last a spare; slice 2 fails at 100.5 s for 1,000 s;
// data_parallel swaps in 20 s and restarts in 30 s; 500 s (as docs/metrics.md).
nlohmann::json priced_example() {
  return {{"name", "priced"},
          {"horizon", "500s"},
          {"cluster", {{"chips", 20}, {"chips_per_host", 4}, {"hosts_per_slice", 1}, {"spare_slices", 1}}},
          {"job", {{"params", 1e9}, {"tokens_per_step", 1e6}, {"step_time", "1s"}}},
          {"chaos", {{{"at", "100500ms"}, {"action", "fail"}, {"target", {{"slice", 2}}}, {"duration", "1000s"}}}},
          {"policies", {{{"name", "dp"}, {"type", "data_parallel"}, {"restart_time", "30s"}, {"swap_time", "20s"}}}},
          {"cost", {{"chip_hour", 3.6}, {"spare_price", 0.5},
                    {"energy", {{"chip_power", 1000}, {"idle_power", 500}, {"kwh", 0.36}}}}}};
}

double category(const output::CostResult& c, const std::string& name) {
  for (const auto& [n, v] : c.by_category) {
    if (n == name) return v;
  }
  FAIL("no category " << name);
  return 0;
}

TEST_CASE("a run's cost by hand: rental and energy per category add up", "[models][cost]") {
  const auto prepared = testing::prepare_doc(priced_example());
  const output::PolicyResult p = run_policy(prepared, 0, 1, nullptr);
  REQUIRE(p.cost.has_value());
  const output::CostResult& c = *p.cost;
  // Rental: (16 chips x 3.6 + 4 spare chips x 3.6 x 0.5) per hour = 0.018 per s, 9.0 in
  // 500 s; 0.0009 per chip-second. Energy: 1 kW x 0.36 per kWh = 0.0001 per working
  // chip-second, half that idle, nothing down.
  CHECK(c.rental == Approx(9.0).epsilon(1e-12));
  CHECK(c.energy == Approx(0.8201).epsilon(1e-12));  // (7192 + 800 + 8) x 1e-4 + 402 x 5e-5
  CHECK(c.total == Approx(9.8201).epsilon(1e-12));
  CHECK(category(c, "productive") == Approx(7192 * 0.001).epsilon(1e-12));
  CHECK(category(c, "idle") == Approx(402 * (0.0009 + 0.00005)).epsilon(1e-12));
  CHECK(category(c, "reconfigure") == Approx(800 * 0.001).epsilon(1e-12));
  CHECK(category(c, "down") == Approx(1598 * 0.0009).epsilon(1e-12));
  CHECK(category(c, "lost_work") == Approx(8 * 0.001).epsilon(1e-12));
  double sum = 0;
  for (const auto& [name, v] : c.by_category) sum += v;
  CHECK(sum == Approx(c.total).epsilon(1e-14));
  // 449 steps of 1e6 tokens.
  REQUIRE(c.per_billion_tokens.has_value());
  CHECK(*c.per_billion_tokens == Approx(9.8201 / 0.449).epsilon(1e-12));
  CHECK_FALSE(c.to_target.has_value());  // no target
  CHECK(c.currency == "USD");
}

TEST_CASE("cost to a token target: rental to the target plus energy so far", "[models][cost]") {
  nlohmann::json doc = priced_example();
  doc["job"]["target_tokens"] = 5e7;  // 50 steps: reached at 50 s, which ends the run
  const output::PolicyResult p = run_policy(testing::prepare_doc(doc), 0, 1, nullptr);
  REQUIRE(p.time_to_target_s.has_value());
  CHECK(*p.time_to_target_s == Approx(50));
  REQUIRE(p.cost->to_target.has_value());
  // 50 s: rental 0.018 x 50 = 0.9; energy 16 x 50 x 1e-4 + 4 x 50 x 5e-5 = 0.09.
  CHECK(*p.cost->to_target == Approx(0.99).epsilon(1e-12));
  CHECK(p.cost->total == Approx(0.99).epsilon(1e-12));
}

nlohmann::json two_sites() {
  nlohmann::json doc = priced_example();
  doc["cluster"]["sites"] = {{{"name", "a"}, {"slices", 3}}, {{"name", "b"}, {"slices", 2}}};
  doc["cluster"]["links"] = {{{"from", "a"}, {"to", "b"}, {"bandwidth", "100Gbps"}}};
  doc["stragglers"] = {{{"type", "hardware_generations"},
                        {"generations", {{{"name", "old"}, {"first_slice", 4}, {"slices", 1}, {"factor", 1.2}}}}}};
  doc["cost"] = {{"chip_hour", 4}, {"spare_price", 0.5},
                 {"prices", {{{"site", "b"}, {"chip_hour", 2}},
                             {{"generation", "old"}, {"chip_hour", 1}},
                             {{"site", "b"}, {"generation", "old"}, {"chip_hour", 0.5}}}}};
  return doc;
}

TEST_CASE("the most specific price rule wins per slice", "[models][cost]") {
  const auto prepared = testing::prepare_doc(two_sites());
  REQUIRE(prepared.cost.has_value());
  // Slices 0-2 at a: 4; slice 3 at b: 2; slice 4 at b, generation old, a spare: 0.5 x 0.5.
  const double per_hour = 3 * 4 * 4.0 + 4 * 2.0 + 4 * 0.5 * 0.5;
  CHECK(prepared.cost->fleet_per_second == Approx(per_hour / 3600).epsilon(1e-12));
  CHECK_FALSE(prepared.cost->energy.has_value());
}

std::string error_of(const nlohmann::json& doc) {
  try {
    testing::prepare_doc(doc);
  } catch (const scenario::ScenarioError& e) {
    return e.what();
  }
  return "";
}

TEST_CASE("a bad cost section is an error at its key", "[models][cost]") {
  nlohmann::json doc = two_sites();
  doc["cost"]["prices"][1]["generation"] = "olde";
  CHECK_THAT(error_of(doc), Catch::Contains("cost.prices.1.generation: no hardware_generations "
                                            "entry is named \"olde\"; did you mean \"old\"?"));
  doc = two_sites();
  doc["cost"]["prices"][0]["site"] = "bb";
  CHECK_THAT(error_of(doc), Catch::Contains("cost.prices.0.site: unknown site \"bb\""));
  doc = two_sites();
  doc["cost"]["prices"][1] = {{"site", "b"}, {"chip_hour", 3}};
  CHECK_THAT(error_of(doc), Catch::Contains("cost.prices.1: the same site and generation as prices.0"));
  doc = two_sites();
  doc["cost"]["chip_hour"] = -1;
  CHECK_THAT(error_of(doc), Catch::Contains("cost.chip_hour: expected"));
  doc = two_sites();
  doc["cost"]["spare_price"] = 1.5;
  CHECK_THAT(error_of(doc), Catch::Contains("cost.spare_price"));
  doc = two_sites();
  doc["cost"]["chip_hours"] = 1;
  CHECK_THAT(error_of(doc), Catch::Contains("cost.chip_hours: unknown key; did you mean \"chip_hour\"?"));
  doc = two_sites();
  doc["cost"]["prices"][0] = {{"chip_hour", 3}};
  CHECK_THAT(error_of(doc), Catch::Contains("cost.prices.0: expected \"site\", \"generation\" or both"));
}

// Data-parallel across two sites of 2 slices x 4 chips, 4 GB of gradients;
// WAN at 0.05 per GB.
nlohmann::json wan_priced() {
  return {{"name", "wan-priced"},
          {"horizon", "300s"},
          {"cluster", {{"chips", 16}, {"chips_per_host", 4}, {"hosts_per_slice", 1},
                       {"sites", {{{"name", "a"}, {"slices", 2}}, {{"name", "b"}, {"slices", 2}}}},
                       {"links", {{{"from", "a"}, {"to", "b"}, {"bandwidth", "100Gbps"}}}}}},
          {"job", {{"params", 2e9}, {"tokens_per_step", 1e6}, {"step_time", "1s"}}},
          {"policies", {{{"name", "dp"}, {"type", "data_parallel"}}}},
          {"cost", {{"chip_hour", 3.6}, {"wan_price_per_gb", 0.05},
                    {"energy", {{"chip_power", 1000}, {"kwh", 0.36}}}}}};
}

TEST_CASE("the WAN's price joins the categories in the total", "[models][wan]") {
  const output::PolicyResult p = run_policy(testing::prepare_doc(wan_priced()), 0, 1, nullptr);
  REQUIRE(p.cost.has_value());
  REQUIRE(p.steps > 100);
  REQUIRE(p.wan_bytes > 0);
  const output::CostResult& c = *p.cost;
  CHECK(c.wan == Approx(p.wan_bytes / 1e9 * 0.05).epsilon(1e-14));
  double categories = 0;
  for (const auto& [name, v] : c.by_category) categories += v;
  CHECK(categories == Approx(c.rental + c.energy).epsilon(1e-14));
  CHECK(c.total == Approx(categories + c.wan).epsilon(1e-14));
  CHECK(*c.per_billion_tokens == Approx(c.total / (p.tokens / 1e9)).epsilon(1e-14));
}

TEST_CASE("a bad wan_price_per_gb is an error at its key", "[models][wan]") {
  nlohmann::json doc = wan_priced();
  doc["cost"]["wan_price_per_gb"] = -0.01;
  CHECK_THAT(error_of(doc), Catch::Contains("cost.wan_price_per_gb: expected"));
  doc["cost"]["wan_price_per_gb"] = "cheap";
  CHECK_THAT(error_of(doc), Catch::Contains("cost.wan_price_per_gb: expected"));
  doc = wan_priced();
  doc["cost"]["wan_price_per_gbs"] = 0.05;
  CHECK_THAT(error_of(doc), Catch::Contains("cost.wan_price_per_gbs: unknown key; did you mean "
                                            "\"wan_price_per_gb\"?"));
}

}  // namespace
}  // namespace goodsim::models
