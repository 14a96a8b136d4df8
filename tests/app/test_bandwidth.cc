// goodsim bandwidth: the geometric bisection against closed forms, one of
// them a data-parallel run whose utilization is known exactly.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <sstream>

#include "app/bandwidth.h"
#include "sim/scenario/error.h"
#include "tests/app/test_sweep_support.h"

namespace goodsim::app {
namespace {

// Two sites of one slice each, one link, data-parallel without layers: a step
// is 0.1 s + 1 ms + 16e9 bits / X.
nlohmann::json dp_two_sites() {
  return {{"name", "bw"},
          {"seed", 1},
          {"horizon", "10m"},
          {"cluster",
           {{"chips", 8}, {"chips_per_host", 4}, {"hosts_per_slice", 1},
            {"sites", {{{"name", "a"}}, {{"name", "b"}}}},
            {"links", {{{"from", "a"}, {"to", "b"}, {"bandwidth", "1Gbps"}, {"latency", "1ms"}}}}}},
          {"job", {{"params", 1e9}, {"tokens_per_step", 1e6}, {"step_time", "100ms"}}},
          {"policies", {{{"name", "dp"}, {"type", "data_parallel"}, {"restart_time", "1m"}}}}};
}

TEST_CASE("bisection: finds x / (x + c) = u within the tolerance", "[app][bandwidth]") {
  const double c = 3.7e9;
  int calls = 0;
  auto f = [&](double x) {
    ++calls;
    return x / (x + c);
  };
  for (double u : {0.5, 0.8, 0.9, 0.99}) {
    const double exact = c * u / (1 - u);
    const auto x = bisect_bandwidth(f, u, 1e6, 1e14, 0.01);
    REQUIRE(x);
    CHECK(*x >= exact * (1 - 1e-12));
    CHECK(*x <= exact * 1.01);
  }
  CHECK(calls < 4 * 20);
  CHECK_FALSE(bisect_bandwidth(f, 0.5, 1e6, 1e8, 0.01));
  CHECK(*bisect_bandwidth(f, 1e-6, 1e6, 1e8, 0.01) == 1e6);
}

TEST_CASE("bisection over real runs: data-parallel's known threshold", "[app][bandwidth]") {
  const models::PreparedScenario base = testing::prepare_doc(dp_two_sites());
  auto utilization = [&](double bps) {
    nlohmann::json doc = dp_two_sites();
    doc["cluster"]["links"][0]["bandwidth"] = bps;
    return models::run_policy(testing::prepare_doc(doc), 0, 1, nullptr).goodput;
  };
  for (double u : {0.5, 0.9}) {
    // 0.1 / (0.101 + 16e9 / X) = u.
    const double exact = 16e9 / (0.1 / u - 0.101);
    const auto x = bisect_bandwidth(utilization, u, 1e6, 1e14, 0.01);
    REQUIRE(x);
    CHECK(*x >= exact * 0.999);
    CHECK(*x <= exact * 1.011);
  }
}

TEST_CASE("goodsim bandwidth prints a row per policy; bad targets are errors",
          "[app][bandwidth]") {
  testing::ScratchDir dir("bandwidth");
  const std::string file = dir / "bw.json";
  std::ofstream(file) << dp_two_sites().dump();
  BandwidthOptions o;
  o.scenario = file;
  o.targets = {0.5};
  std::ostringstream out;
  CHECK(bandwidth_command(o, out) == 0);
  CHECK_THAT(out.str(), Catch::Contains("dp") && Catch::Contains("50%") &&
                            Catch::Contains("Gbps"));
  o.targets = {1.5};
  CHECK_THROWS_AS(bandwidth_command(o, out), scenario::ScenarioError);
  o.targets = {0.5};
  o.policies = {"nope"};
  CHECK_THROWS_WITH(bandwidth_command(o, out), Catch::Contains("no policy named"));
}

}  // namespace
}  // namespace goodsim::app
