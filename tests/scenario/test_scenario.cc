#include <catch2/catch.hpp>

#include "sim/scenario/error.h"
#include "sim/scenario/overrides.h"
#include "sim/scenario/scenario.h"
#include "tests/support/scenarios.h"

namespace goodsim::scenario {
namespace {

TEST_CASE("sites share slices evenly unless given", "[scenario]") {
  nlohmann::json doc = testing::small_scenario("1d", "", "", "5m", 5);
  doc["cluster"]["sites"] = {{{"name", "a"}}, {{"name", "b"}}};
  doc["cluster"]["links"] = {{{"from", "a"}, {"to", "b"}, {"bandwidth", "8Gbps"}}};
  const Scenario s = parse_scenario(doc, "t.json");
  REQUIRE(s.cluster.sites.size() == 2);
  CHECK(s.cluster.sites[0].slices == 3);
  CHECK(s.cluster.sites[1].slices == 2);
  const cluster::Layout l = make_layout(s.cluster);
  CHECK(l.site_of(2) == 0);
  CHECK(l.site_of(3) == 1);
}

TEST_CASE("step time is derived from FLOPs when not given", "[scenario]") {
  nlohmann::json doc = testing::small_scenario("1d", "", "", "5m");
  doc["job"] = {{"params", 1e9}, {"tokens_per_step", 64e3}, {"peak_flops", "1TFLOPS"}, {"mfu", 0.5}};
  const Scenario s = parse_scenario(doc, "t.json");
  // 6 * 1e9 * 64e3 / (64 chips * 1e12 * 0.5) = 12 s
  CHECK(s.job.step_time == core::Duration::seconds(12));
}

TEST_CASE("links become the network graph", "[scenario]") {
  nlohmann::json doc = testing::small_scenario("1d", "", "", "5m");
  doc["cluster"]["sites"] = {{{"name", "a"}}, {{"name", "b"}}};
  doc["cluster"]["links"] = {{{"from", "a"}, {"to", "b"}, {"bandwidth", "8Gbps"}, {"latency", "10ms"}}};
  const cluster::Network net = make_network(parse_scenario(doc, "t.json").cluster);
  const auto t = net.transfer_time(0, 1, 1e9);  // 8e9 bits over 8 Gbps + 10 ms
  REQUIRE(t.has_value());
  CHECK(*t == core::Duration::millis(1010));
}

TEST_CASE("set overrides apply before validation", "[scenario]") {
  nlohmann::json doc = testing::small_scenario("1d", "100d", "1h", "5m");
  apply_override(doc, "policies.0.restart_time=10m");
  apply_override(doc, "horizon=2d");
  const auto p = testing::prepare_doc(doc);
  CHECK(p.scenario.horizon == core::Duration::days(2));
  nlohmann::json bad = doc;
  apply_override(bad, "policies.0.restart_tim=10m");
  CHECK_THROWS_WITH(testing::prepare_doc(bad),
                    Catch::Contains("policies.0.restart_tim: unknown key; did you mean \"restart_time\"?"));
  CHECK_THROWS_AS(apply_override(doc, "policies.3.restart_time=1m"), ScenarioError);
}

}  // namespace
}  // namespace goodsim::scenario
