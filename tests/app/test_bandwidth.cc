// goodsim bandwidth: the geometric bisection against closed forms, one of
// them a data-parallel run whose utilization is known exactly.
#include <catch2/catch.hpp>

#include <cmath>
#include <utility>
#include <vector>
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

TEST_CASE("the reference grid: 50 points from 0.1 Gbps to 1 Tbps, the published values on it",
          "[app][bandwidth]") {
  const std::vector<double> grid = reference_grid_bps();
  REQUIRE(grid.size() == 50);
  CHECK(grid.front() == Approx(0.1e9).epsilon(1e-12));
  CHECK(grid.back() == Approx(1e12).epsilon(1e-12));
  for (size_t k = 1; k < grid.size(); ++k) {
    CHECK(grid[k] / grid[k - 1] == Approx(std::pow(10.0, 4.0 / 49)).epsilon(1e-12));
  }
  // Thresholds printed in the Streaming DiLoCo paper's Table 4 (Gbps, one
  // decimal) and the grid point each one lies within 0.06 of (the table
  // rounds some values, e.g. 86.85 to 86.8, and 1.389 to 1.4).
  const std::vector<std::pair<size_t, double>> published = {
      {7, 0.4},   {14, 1.4},  {15, 1.7},  {16, 2.0},  {17, 2.4},   {19, 3.6},   {20, 4.3},
      {21, 5.2},  {23, 7.5},  {24, 9.1},  {25, 11.0}, {26, 13.3},  {27, 16.0},  {28, 19.3},
      {29, 23.3}, {30, 28.1}, {31, 33.9}, {33, 49.4}, {36, 86.8},  {37, 104.8}, {40, 184.2},
      {41, 222.3}, {42, 268.3}, {43, 323.8}, {44, 390.7}, {45, 471.5}, {46, 569.0}};
  for (const auto& [k, gbps] : published) CHECK(std::abs(grid[k] / 1e9 - gbps) < 0.06);
}

TEST_CASE("first_on_grid: the first grid point reaching the target", "[app][bandwidth]") {
  const double c = 3.7e9;
  auto f = [&](double x) { return x / (x + c); };
  const std::vector<double> grid = reference_grid_bps();
  for (double u : {0.5, 0.8, 0.9, 0.99}) {
    const auto k = first_on_grid(f, u, grid);
    REQUIRE(k);
    CHECK(f(grid[*k]) >= u);
    REQUIRE(*k > 0);
    CHECK(f(grid[*k - 1]) < u);
  }
  CHECK_FALSE(first_on_grid(f, 0.9999, grid));
  CHECK(*first_on_grid(f, 1e-6, grid) == 0);
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
                            Catch::Contains("Gbps") && Catch::Contains("reference grid"));
  // 0.1 / (0.101 + 16e9 / X) >= 0.5 from X = 161.6 Gbps: first at grid
  // point 40 (184.2 Gbps; point 39, 152.6 Gbps, gives 0.4886).
  CHECK_THAT(out.str(), Catch::Contains("  184.2\n"));
  o.grid = "none";
  std::ostringstream plain;
  CHECK(bandwidth_command(o, plain) == 0);
  CHECK_THAT(plain.str(), !Catch::Contains("reference grid"));
  o.grid = "paper";
  CHECK_THROWS_WITH(bandwidth_command(o, out), Catch::Contains("--grid"));
  o.grid = "reference";
  o.targets = {1.5};
  CHECK_THROWS_AS(bandwidth_command(o, out), scenario::ScenarioError);
  o.targets = {0.5};
  o.policies = {"nope"};
  CHECK_THROWS_WITH(bandwidth_command(o, out), Catch::Contains("no policy named"));
}

}  // namespace
}  // namespace goodsim::app
