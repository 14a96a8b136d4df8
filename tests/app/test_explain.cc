// goodsim explain, the "why" block and run --seeds, on real runs.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "app/commands.h"
#include "app/explain.h"
#include "app/replicate.h"
#include "app/run_progress.h"
#include "sim/output/summary.h"
#include "sim/scenario/error.h"
#include "sim/scenario/json_file.h"
#include "sim/scenario/overrides.h"
#include "tests/support/scenarios.h"

namespace goodsim::app {
namespace {

const std::string kDemo = GOODSIM_SOURCE_DIR "/scenarios/demo.json";

// The capacity planner's question: about 100k chips (391 slices of 256, 4 spares), a per-chip
// MTBF of 2 years and 4-hour repairs. About 100,096 / 2y x 4h = 23 chips, hence up to 23
// slices, are down at any time against 4 spares: data_parallel never has a full set.
nlohmann::json hundred_k() {
  nlohmann::json doc = scenario::load_json_file(kDemo);
  for (const char* set : {"cluster.chips=100096", "failures.0.mtbf=2y",
                          "failures.0.repair_time=4h"}) {
    scenario::apply_override(doc, set);
  }
  return doc;
}

TEST_CASE("explain names spare exhaustion when data_parallel reads goodput ~0", "[app][explain]") {
  const auto prepared = testing::prepare_doc(hundred_k(), "demo.json");
  const output::RunResult run = models::run_scenario(prepared, 1, nullptr);
  const nlohmann::json summary = output::summary_json(run);
  REQUIRE(run.policies.size() == 3);
  CHECK(run.policies[0].goodput < 0.01);
  CHECK(run.policies[2].goodput > 0.5);  // elastic keeps training on fewer slices
  const output::Diagnostics& d = run.policies[0].diagnostics;
  CHECK(d.slices_down_mean > 10);
  CHECK(d.spares_exhausted_s > 0.99 * d.end_s);
  const std::string text = explain_summary(summary, "summary.json");
  INFO(text);
  const auto dp = text.find("dp-30m (data_parallel)");
  const auto elastic = text.find("elastic (elastic_data_parallel)");
  REQUIRE(dp != std::string::npos);
  REQUIRE(elastic != std::string::npos);
  // The warning is in both data_parallel sections, never in the elastic one.
  // Spares run out within the first hour (5.7 failures per hour) of the 7 days.
  const std::string never = "the job never had a full set of slices";
  CHECK(text.find(never, dp) < elastic);
  CHECK(text.find(never, text.find("dp-daly")) < elastic);
  CHECK(text.find(never, elastic) == std::string::npos);
  CHECK(text.find("spares exhausted") != std::string::npos);
  CHECK(text.find("checkpoints: daly, interval") != std::string::npos);
  const std::string why = why_block(summary, "summary.json");
  CHECK(why.find(never) != std::string::npos);
  CHECK(why.find("badput: idle") != std::string::npos);  // waiting for a full set is idle
}

TEST_CASE("explain warns when a recovery outlasts the time between failures", "[app][explain]") {
  // 64 chips of MTBF 40h: a job failure every 37.5 min, far below a 3-hour restart. Repairs
  // of 1 min keep slices up (no "full set" warning, which would explain the outages instead).
  nlohmann::json doc = testing::small_scenario("10d", "40h", "1m", "3h");
  const auto prepared = testing::prepare_doc(doc);
  const nlohmann::json summary = output::summary_json(models::run_scenario(prepared, 1, nullptr));
  const std::string text = explain_summary(summary, "s");
  INFO(text);
  CHECK(text.find("a recovery lasts longer") != std::string::npos);
  CHECK(text.find("full set") == std::string::npos);
  nlohmann::json calm = testing::small_scenario("10d", "100y", "10m", "1m");
  const auto quiet = output::summary_json(models::run_scenario(testing::prepare_doc(calm), 1, nullptr));
  CHECK(explain_summary(quiet, "s").find("warning") == std::string::npos);
}

TEST_CASE("explain reads a run directory and rejects what is not a summary", "[app][explain]") {
  const auto dir = std::filesystem::temp_directory_path() / "goodsim_test_explain";
  std::filesystem::remove_all(dir);
  const auto prepared = testing::prepare_doc(testing::small_scenario("1d", "1y", "1h", "5m"));
  output::write_run_outputs(models::run_scenario(prepared, 1, nullptr), dir);
  std::ostringstream out;
  CHECK(explain_command(dir.string(), out) == 0);
  CHECK(out.str().find("dp (data_parallel): goodput") != std::string::npos);
  std::ofstream(dir / "other.json") << R"({"scenario": "x", "seed": 1})";
  CHECK_THROWS_WITH(explain_command((dir / "other.json").string(), out),
                    Catch::Contains("chips: missing"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("run --seeds writes every replication and their mean and CI", "[app][explain]") {
  const auto dir = std::filesystem::temp_directory_path() / "goodsim_test_seeds";
  std::filesystem::remove_all(dir);
  RunOptions o;
  o.scenario = kDemo;
  o.sets = {"horizon=1d"};
  o.seeds = 3;
  o.jobs = 2;
  o.out_dir = dir.string();
  std::ostringstream out, err;
  REQUIRE(run_command(o, out, err) == 0);
  CHECK(out.str().find("goodput (95% CI)") != std::string::npos);
  double sum = 0;
  for (int seed = 1; seed <= 3; ++seed) {
    const auto s = scenario::load_json_file((dir / ("seed-" + std::to_string(seed)) / "summary.json").string());
    CHECK(s["seed"] == seed);
    CHECK(s["sets"] == nlohmann::json::array({"horizon=1d"}));
    sum += s["policies"][0]["goodput"].get<double>();
  }
  std::ifstream csv(dir / "replications.csv");
  std::string header, first;
  std::getline(csv, header);
  std::getline(csv, first);
  CHECK(header == "policy,type,metric,n,mean,sd,ci95");
  CHECK(first.rfind("dp-30m,data_parallel,goodput,3,", 0) == 0);
  const double mean = std::stod(first.substr(first.find(",3,") + 3));
  CHECK(mean == Approx(sum / 3).epsilon(1e-12));
  std::filesystem::remove_all(dir);
}

TEST_CASE("the progress line reads as simulated time over horizon", "[app]") {
  CHECK(RunProgressLine::text("dp", 3 * 86400.0, 30 * 86400.0, 1.25e6) ==
        "dp: simulated 3d of 30d (10.0%), 1.25e+06 events/s");
  CHECK(RunProgressLine::text_all(0.42, 6, {{"k1", 0.61}, {"k8", 0.234}}, 2.1e6) ==
        "simulated 42.0% of 6 policies (k1 61%, k8 23%), 2.1e+06 events/s");
  CHECK(RunProgressLine::text_all(1.0, 2, {}, 5e5) == "simulated 100.0% of 2 policies, 5e+05 events/s");
}

}  // namespace
}  // namespace goodsim::app
