// goodsim calibrate (app/calibrate): knobs, target files, and the fit
// recovering knobs a simulation was run with.
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "app/calibrate/calibrate_command.h"
#include "app/calibrate/fit.h"
#include "app/calibrate/knob.h"
#include "app/calibrate/target_file.h"
#include "app/sweep/stats.h"
#include "models/runner.h"
#include "sim/scenario/error.h"
#include "tests/app/test_sweep_support.h"
#include "tests/app/test_calibrate_support.h"
#include "tests/app/test_sweep_support.h"

namespace goodsim::app::calibrate {
namespace {

using goodsim::testing::ScratchDir;

using test::error_of;
using test::write;

TEST_CASE("calibrate: knobs parse numbers and durations, log scale over a decade", "[calibrate]") {
  const Knob d = Knob::parse("policies.0.restart_time=1m..5h");
  CHECK(d.duration());
  CHECK(d.log_scale());
  CHECK(d.lo() == 60);
  CHECK(d.hi() == 18000);
  CHECK(d.value(0.5) == Approx(std::sqrt(60.0 * 18000)));
  CHECK(d.coordinate(d.value(0.3)) == Approx(0.3));
  CHECK(d.json_value(90) == "90s");
  const Knob x = Knob::parse("a.b,c.d=0.2..0.8");
  CHECK_FALSE(x.log_scale());
  CHECK(x.paths() == std::vector<std::string>{"a.b", "c.d"});
  CHECK(x.value(0.5) == Approx(0.5));
  CHECK(x.assignments(0.25) == std::vector<std::string>{"a.b=0.25", "c.d=0.25"});
  CHECK(x.value(2) == 0.8);  // clamped to the box
  CHECK_THAT(error_of([] { Knob::parse("a=5..5"); }), Catch::Contains("empty range"));
  CHECK_THAT(error_of([] { Knob::parse("a=9..1"); }), Catch::Contains("empty range"));
  CHECK_THAT(error_of([] { Knob::parse("a=1..x"); }), Catch::Contains("number or a duration"));
  CHECK_THAT(error_of([] { Knob::parse("a:1..2"); }), Catch::Contains("PATH=LO..HI"));
}

TEST_CASE("calibrate: target files in CSV and JSON; bad ones name the place", "[calibrate]") {
  ScratchDir dir("calibrate-targets");
  write(dir / "t.csv",
        "# fleet numbers\nset,policy,metric,value,uncertainty\n"
        "cluster.chips=64;horizon=\"3d\",dp,goodput,0.7,0.01\n,dp,failures_per_day,12,\n");
  const std::vector<Observation> csv = read_targets(dir / "t.csv");
  REQUIRE(csv.size() == 2);
  CHECK(csv[0].sets == std::vector<std::string>{"cluster.chips=64", "horizon=\"3d\""});
  CHECK(csv[0].uncertainty == 0.01);
  CHECK(csv[1].sets.empty());
  CHECK(csv[1].metric == "failures_per_day");
  CHECK(csv[1].uncertainty == 0);
  write(dir / "t.json",
        R"({"observations": [{"set": ["cluster.chips=64"], "policy": "dp", "metric": "uptime",
                             "value": 0.9}]})");
  CHECK(read_targets(dir / "t.json").at(0).metric == "uptime");

  write(dir / "metric.csv", "policy,metric,value\ndp,goodptu,0.7\n");
  CHECK_THAT(error_of([&] { read_targets(dir / "metric.csv"); }),
             Catch::Contains("line 2: unknown metric \"goodptu\""));
  write(dir / "column.csv", "policy,metric,value,weight\n");
  CHECK_THAT(error_of([&] { read_targets(dir / "column.csv"); }),
             Catch::Contains("unknown column \"weight\""));
  write(dir / "value.csv", "policy,metric,value\ndp,goodput,high\n");
  CHECK_THAT(error_of([&] { read_targets(dir / "value.csv"); }),
             Catch::Contains("value: expected a number"));
  write(dir / "empty.csv", "policy,metric,value\n");
  CHECK_THAT(error_of([&] { read_targets(dir / "empty.csv"); }),
             Catch::Contains("no observations"));
  write(dir / "key.json", R"({"observations": [{"policy": "dp", "metric": "uptime", "valu": 1}]})");
  CHECK_THAT(error_of([&] { read_targets(dir / "key.json"); }), Catch::Contains("valu"));
  write(dir / "neg.json", R"({"observations": [{"policy": "dp", "metric": "uptime", "value": 1,
                                                "uncertainty": -1}]})");
  CHECK_THAT(error_of([&] { read_targets(dir / "neg.json"); }), Catch::Contains("uncertainty"));
}

// Data parallel (restart R) and elastic DP (pauses d) on 16-chip slices under
// exponential chip failures: goodput falls with R and with d.
nlohmann::json recovery_scenario() {
  nlohmann::json doc = goodsim::testing::small_scenario("60d", "30d", "10m", "30m", 4, 4);
  doc["policies"].push_back({{"name", "elastic"},
                             {"type", "elastic_data_parallel"},
                             {"downscale_time", "5m"},
                             {"upscale_time", "5m"}});
  return doc;
}

// The mean and standard error of `metric` over seeds first..first+n-1.
sweep::Estimate simulate(nlohmann::json doc, int chips, size_t policy, uint64_t first, size_t n) {
  doc["cluster"]["chips"] = chips;
  const models::PreparedScenario p = goodsim::testing::prepare_doc(doc);
  std::vector<double> v;
  for (size_t s = 0; s < n; ++s)
    v.push_back(models::run_policy(p, policy, first + s, nullptr).goodput);
  return sweep::estimate(v);
}

TEST_CASE("calibrate: recovers a known restart time and resize cost within its interval",
          "[calibrate]") {
  // Observations: goodput of both policies at 32, 64 and 128 chips, simulated
  // with R = 30m, d = 5m on seeds 1001-1016, the standard error as uncertainty.
  // The fit runs other seeds (1-8): it must find the knobs from the means.
  ScratchDir dir("calibrate-recover");
  const nlohmann::json doc = recovery_scenario();
  std::ostringstream csv;
  csv << "set,policy,metric,value,uncertainty\n";
  for (int chips : {32, 64, 128}) {
    for (size_t policy : {0u, 1u}) {
      const sweep::Estimate e = simulate(doc, chips, policy, 1001, 16);
      csv << "cluster.chips=" << chips << "," << (policy ? "elastic" : "dp") << ",goodput,"
          << e.mean << "," << e.sd / 4 << "\n";
    }
  }
  write(dir / "targets.csv", csv.str());
  write(dir / "scenario.json", doc.dump());
  CalibrateOptions o;
  o.scenario = dir / "scenario.json";
  o.fits = {"policies.0.restart_time=1m..5h",
            "policies.1.downscale_time,"
            "policies.1.upscale_time=30s..1h"};
  o.target = dir / "targets.csv";
  o.seeds = 8;
  o.jobs = 2;
  o.quiet = true;
  o.out_dir = dir / "out";
  std::ostringstream out, err;
  REQUIRE(calibrate_command(o, out, err) == 0);
  std::ifstream in(dir / "out/calibration.json");
  const nlohmann::json report = nlohmann::json::parse(in);
  INFO(out.str());
  const double truth[] = {1800, 300};
  for (size_t k = 0; k < 2; ++k) {
    const nlohmann::json& knob = report["knobs"][k];
    CHECK(knob["identified"].get<bool>());
    CHECK(knob["lo95"].get<double>() <= truth[k]);
    CHECK(knob["hi95"].get<double>() >= truth[k]);
    // An informative interval: well inside the range of the knob.
    CHECK(knob["hi95"].get<double>() / knob["lo95"].get<double>() < 3);
  }
  std::ifstream scenario_in(dir / "out/calibrated.json");
  const nlohmann::json calibrated = nlohmann::json::parse(scenario_in);
  CHECK(calibrated["policies"][1]["downscale_time"] == calibrated["policies"][1]["upscale_time"]);
}

TEST_CASE("calibrate: restarts never start again at the centre", "[calibrate]") {
  // With one knob, Halton point 1 (0.5 in base 2) was the centre, evaluated twice.
  for (size_t n : {1, 2, 3}) {
    INFO(n);
    std::vector<std::vector<double>> starts;
    for (size_t i = 0; i <= 6; ++i) {
      const std::vector<double> z = start_point(i, n);
      REQUIRE(z.size() == n);
      for (const auto& earlier : starts) CHECK(z != earlier);
      starts.push_back(z);
    }
  }
}

TEST_CASE("calibrate: bad observations and knobs are input errors", "[calibrate]") {
  ScratchDir dir("calibrate-bad");
  write(dir / "scenario.json", goodsim::testing::small_scenario("2d", "30d", "10m", "30m").dump());
  CalibrateOptions o;
  o.scenario = dir / "scenario.json";
  o.fits = {"policies.0.restart_time=1m..1h"};
  o.target = dir / "t.csv";
  o.seeds = 1;
  o.quiet = true;
  o.out_dir = dir / "out";
  std::ostringstream out, err;
  auto fails_with = [&](const std::string& targets) {
    write(dir / "t.csv", "set,policy,metric,value\n" + targets);
    return error_of([&] { calibrate_command(o, out, err); });
  };
  CHECK_THAT(fails_with(",elastic,goodput,0.5\n"),
             Catch::Contains("unknown policy \"elastic\"; the scenario has: dp"));
  CHECK_THAT(fails_with("cluster.chps=32,dp,goodput,0.5\n"),
             Catch::Contains("t.csv:2 (cluster.chps=32): cluster.chps"));
  o.fits = {"policies.0.restart_tme=1m..1h"};
  CHECK_THAT(fails_with(",dp,goodput,0.5\n"),
             Catch::Contains("--fit policies.0.restart_tme: policies.0.restart_tme"));
  o.fits = {"policies.0.restart_time=1m..1h", "failures.0.repair_time=1m..1h"};
  CHECK_THAT(fails_with(",dp,goodput,0.5\n"), Catch::Contains("2 knobs but only 1 observations"));
  CHECK_FALSE(std::filesystem::exists(dir / "out"));
}

}  // namespace
}  // namespace goodsim::app::calibrate
