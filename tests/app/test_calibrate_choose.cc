// goodsim calibrate --choose (app/calibrate/choice, structures): discrete
// alternatives, the structure the data select, the information criterion and
// bad arguments.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "app/calibrate/calibrate_command.h"
#include "app/calibrate/choice.h"
#include "app/calibrate/structures.h"
#include "app/sweep/stats.h"
#include "models/runner.h"
#include "sim/scenario/error.h"
#include "tests/app/test_calibrate_support.h"
#include "tests/app/test_sweep_support.h"

namespace goodsim::app::calibrate {
namespace {

using goodsim::testing::ScratchDir;

using test::error_of;
using test::write;

// One data_parallel job on 16-chip slices, chip MTBF 30 days, repairs 10 min.
nlohmann::json dp_scenario() {
  return goodsim::testing::small_scenario("30d", "30d", "10m", "1h", 4, 4);
}

// Goodput of `doc` at `chips`, seeds 1001-1016: the mean and its standard error.
sweep::Estimate observe(nlohmann::json doc, int chips) {
  doc["cluster"]["chips"] = chips;
  const models::PreparedScenario p = goodsim::testing::prepare_doc(doc);
  std::vector<double> v;
  for (uint64_t s = 0; s < 16; ++s) v.push_back(models::run_policy(p, 0, 1001 + s, nullptr).goodput);
  return sweep::estimate(v);
}

std::string targets(const nlohmann::json& truth, const std::vector<int>& chips) {
  std::ostringstream csv;
  csv << "set,policy,metric,value,uncertainty\n";
  for (int c : chips) {
    const sweep::Estimate e = observe(truth, c);
    csv << "cluster.chips=" << c << ",dp,goodput," << e.mean << "," << e.sd / 4 << "\n";
  }
  return csv.str();
}

CalibrateOptions options(const ScratchDir& dir) {
  CalibrateOptions o;
  o.scenario = dir / "scenario.json";
  o.target = dir / "targets.csv";
  o.seeds = 8;
  o.jobs = 2;
  o.restarts = 0;
  o.quiet = true;
  o.out_dir = dir / "out";
  return o;
}

nlohmann::json report_of(const ScratchDir& dir) {
  std::ifstream in(dir / "out/calibration.json");
  return nlohmann::json::parse(in);
}

TEST_CASE("calibrate --choose: recovers the structure and the knob from two chip counts",
          "[calibrate]") {
  // Truth: a failure during the restart starts it again, restart 1 h. At 64
  // chips absorb and restart give nearly the same goodput for different
  // restart times; at 512 they part (e^(-L R) against 1 / (1 + L R)).
  ScratchDir dir("calibrate-choose");
  nlohmann::json truth = dp_scenario();
  truth["policies"][0]["failure_during_restart"] = "restart";
  write(dir / "scenario.json", dp_scenario().dump());
  CalibrateOptions o = options(dir);
  o.fits = {"policies.0.restart_time=5m..5h"};
  o.chooses = {"policies.0.failure_during_restart=absorb|restart"};
  o.probes = {"cluster.chips=512"};

  write(dir / "targets.csv", targets(truth, {64, 512}));
  std::ostringstream out, err;
  REQUIRE(calibrate_command(o, out, err) == 0);
  INFO(out.str());
  nlohmann::json r = report_of(dir);
  CHECK(r["structures"]["chosen"] == "policies.0.failure_during_restart=restart");
  CHECK(r["structures"]["separable"].get<bool>());
  const nlohmann::json& knob = r["knobs"][0];
  CHECK(knob["lo95"].get<double>() <= 3600);
  CHECK(knob["hi95"].get<double>() >= 3600);
  CHECK(knob["hi95"].get<double>() / knob["lo95"].get<double>() < 2);
  std::ifstream calibrated(dir / "out/calibrated.json");
  CHECK(nlohmann::json::parse(calibrated)["policies"][0]["failure_during_restart"] == "restart");

  // One chip count: both structures fit it; calibrate says so and names the
  // probe (512 chips) that would separate them.
  write(dir / "targets.csv", targets(truth, {64}));
  out.str("");
  REQUIRE(calibrate_command(o, out, err) == 0);
  r = report_of(dir);
  CHECK_FALSE(r["structures"]["separable"].get<bool>());
  REQUIRE(r["structures"]["tied"].size() == 1);
  const nlohmann::json& probes = r["structures"]["tied"][0]["separating_probes"];
  REQUIRE(probes.size() == 1);
  CHECK(probes[0]["where"] == "dp goodput at cluster.chips=512");
  CHECK_THAT(out.str(), Catch::Contains("not separable"));
}

TEST_CASE("calibrate --choose: of two structures that fit equally well, the simpler wins",
          "[calibrate]") {
  // extend with a restart extension of milliseconds fits as well as absorb,
  // but needs the extension knob; under absorb the knob moves nothing.
  ScratchDir dir("calibrate-choose-ic");
  write(dir / "scenario.json", dp_scenario().dump());
  write(dir / "targets.csv", targets(dp_scenario(), {64, 256}));
  CalibrateOptions o = options(dir);
  o.fits = {"policies.0.restart_time=5m..5h", "policies.0.restart_extension=1ms..10ms"};
  o.chooses = {"policies.0.failure_during_restart=extend|absorb"};
  std::ostringstream out, err;
  REQUIRE(calibrate_command(o, out, err) == 0);
  INFO(out.str());
  const nlohmann::json r = report_of(dir)["structures"];
  CHECK(r["chosen"] == "policies.0.failure_during_restart=absorb");
  const nlohmann::json& rows = r["ranking"];
  CHECK(rows[0]["k"] == 1);
  CHECK(rows[1]["k"] == 2);
  CHECK(std::abs(rows[0]["chi2"].get<double>() - rows[1]["chi2"].get<double>()) < 0.5);
}

TEST_CASE("calibrate --choose: bad arguments name the argument; nothing is written",
          "[calibrate]") {
  ScratchDir dir("calibrate-choose-bad");
  write(dir / "scenario.json", dp_scenario().dump());
  write(dir / "targets.csv", "set,policy,metric,value\n,dp,goodput,0.5\n");
  CalibrateOptions o = options(dir);
  o.fits = {"policies.0.restart_time=5m..5h"};
  std::ostringstream out, err;
  auto fails_with = [&](std::vector<std::string> chooses) {
    o.chooses = std::move(chooses);
    return error_of([&] { calibrate_command(o, out, err); });
  };
  CHECK_THAT(fails_with({"policies.0.swap_time=1m|2m"}),
             Catch::Contains("--choose policies.0.swap_time: policies.0.swap_time: a duration "
                             "key, not a choice or boolean key"));
  CHECK_THAT(fails_with({"policies.0.restart_tme=a|b"}),
             Catch::Contains("--choose policies.0.restart_tme: policies.0.restart_tme: not a "
                             "choice or boolean key"));
  CHECK_THAT(fails_with({"policies.0.failure_during_restart=absorb|soak"}),
             Catch::Contains("--choose policies.0.failure_during_restart: "
                             "policies.0.failure_during_restart: \"soak\" is not accepted"));
  CHECK_THAT(fails_with({"structure=@" + (dir / "missing.json") + "|@" + (dir / "targets.csv")}),
             Catch::Contains("--choose structure: fragment @"));
  CHECK_THAT(fails_with({"policies.0.failure_during_restart=absorb"}),
             Catch::Contains("--choose policies.0.failure_during_restart: expected at least two"));
  o.max_structures = 4;
  CHECK_THAT(fails_with({"policies.0.failure_during_restart=absorb|extend|restart",
                         "policies.0.swap_overlaps_restart=true|false"}),
             Catch::Contains("more than --max-structures 4"));
  CHECK_FALSE(std::filesystem::exists(dir / "out"));
}

TEST_CASE("calibrate --choose: fragments merge objects by key and lists by index",
          "[calibrate]") {
  ScratchDir dir("calibrate-choose-fragment");
  write(dir / "pool.json",
        R"({"description": "spares", "cluster": {"spare_slices": 2},
            "policies": [{"swap_time": "10s"}]})");
  write(dir / "wait.json", R"({"policies": [{}]})");
  const Choice c =
      Choice::parse("recovery=@" + (dir / "wait.json") + "|@" + (dir / "pool.json"));
  CHECK(c.fragments());
  REQUIRE(c.size() == 2);
  CHECK(c.alternatives()[1].description == "spares");
  nlohmann::json doc = dp_scenario();
  doc["policies"].push_back({{"name", "other"}, {"type", "data_parallel"}});
  c.apply(doc, 1);
  CHECK(doc["cluster"]["spare_slices"] == 2);
  CHECK(doc["cluster"]["chips"] == 64);
  CHECK(doc["policies"][0]["swap_time"] == "10s");
  CHECK(doc["policies"][0]["restart_time"] == "1h");
  CHECK(doc["policies"][1]["name"] == "other");
  CHECK_FALSE(doc.contains("description"));
  CHECK_THAT(error_of([] { Choice::parse("x=@a.json|b"); }), Catch::Contains("all alternatives"));
}

}  // namespace
}  // namespace goodsim::app::calibrate
