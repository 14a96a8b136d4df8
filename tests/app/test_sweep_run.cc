// goodsim sweep end to end, in process: results independent of --jobs,
// adaptive replication, and bad input failing before anything is written.
#include <catch2/catch.hpp>
#include <sstream>

#include "app/sweep/csv.h"
#include "app/sweep/sweep.h"
#include "sim/scenario/error.h"
#include "tests/app/test_sweep_support.h"

namespace goodsim::app::sweep {
namespace {

SweepOptions options(const std::string& scenario, const std::string& out, unsigned jobs) {
  SweepOptions o;
  o.scenario = scenario;
  o.vary = {"policies.0.restart_time=1m,10m", "cluster.chips=128,256"};
  o.seeds = 5;
  o.jobs = jobs;
  o.out_dir = out;
  return o;
}

int sweep(const SweepOptions& o) {
  std::ostringstream out, err;
  return sweep_command(o, out, err, Progress::Mode::kOff);
}

void require_same_files(const std::string& a, const std::string& b) {
  for (const char* f : {"results.csv", "summary.csv", "paired.csv", "sweep.json"}) {
    INFO(f);
    CHECK(testing::read_text(a + "/" + f) == testing::read_text(b + "/" + f));
  }
}

TEST_CASE("sweep: files are byte-identical with 1 and 2 jobs", "[app][sweep]") {
  testing::ScratchDir dir("sweep-jobs");
  const std::string scen = testing::write_json(dir / "s.json", testing::two_policy_scenario("60d"));
  REQUIRE(sweep(options(scen, dir / "j1", 1)) == 0);
  REQUIRE(sweep(options(scen, dir / "j2", 2)) == 0);
  require_same_files(dir / "j1", dir / "j2");
  // 4 grid points x 5 seeds x 2 policies, plus the header.
  CHECK(testing::count_lines(dir / "j1/results.csv") == 41);
  CHECK(testing::count_lines(dir / "j1/summary.csv") == 1 + 4 * 2 * kMetricCount);
  CHECK(testing::count_lines(dir / "j1/paired.csv") == 1 + 4 * 1 * kMetricCount);
  const std::string results = testing::read_text(dir / "j1/results.csv");
  CHECK(results.rfind("point,policies.0.restart_time,cluster.chips,seed,policy,type,goodput,", 0) ==
        0);
  CHECK(results.find("\n0,1m,128,1,fast,data_parallel,") != std::string::npos);
  CHECK(results.find("\n3,10m,256,5,slow,data_parallel,") != std::string::npos);
}

TEST_CASE("sweep: adaptive replication reaches the CI target or max-seeds", "[app][sweep]") {
  testing::ScratchDir dir("sweep-adaptive");
  const std::string scen = testing::write_json(dir / "s.json", testing::two_policy_scenario("30d"));
  SweepOptions o = options(scen, dir / "a1", 1);
  o.seeds = 3;
  o.ci_target = 0.01;
  o.max_seeds = 12;
  REQUIRE(sweep(o) == 0);
  o.jobs = 2;
  o.out_dir = dir / "a2";
  REQUIRE(sweep(o) == 0);
  require_same_files(dir / "a1", dir / "a2");
  size_t complete = 0, goodput_rows = 0, grown = 0;
  for (const CsvRecord& r : parse_csv(testing::read_text(dir / "a1/summary.csv"), complete)) {
    if (r.fields[5] != "goodput") continue;
    ++goodput_rows;
    const double n = *parse_number(r.fields[6]);
    CHECK(n >= 3);
    CHECK(n <= 12);
    if (n > 3) ++grown;
    if (n < 12) CHECK(*parse_number(r.fields[9]) < 0.01);
  }
  CHECK(goodput_rows == 8);
  CHECK(grown > 0);  // 3 seeds are not enough for +-0.01 here
}

TEST_CASE("sweep: bad input fails before anything is written", "[app][sweep]") {
  testing::ScratchDir dir("sweep-bad");
  const std::string scen = testing::write_json(dir / "s.json", testing::two_policy_scenario("30d"));
  SweepOptions o = options(scen, dir / "out", 1);
  o.vary = {"cluster.chips=128,100"};  // 100 chips is not a whole number of 16-chip slices
  CHECK_THROWS_WITH(sweep(o),
                    Catch::StartsWith("--vary: cluster.chips: 100 chips is not a whole number") &&
                        Catch::Contains("(grid point 1: cluster.chips=100)"));
  o.vary = {"cluster.chips=lin:1..3"};
  CHECK_THROWS_WITH(sweep(o), Catch::Contains("expected lin:A..B:N"));
  o.vary = {"policies.0.restart_tme=1m,2m"};
  CHECK_THROWS_WITH(sweep(o), Catch::StartsWith("--vary: policies.0.restart_tme: unknown key; "
                                                "did you mean \"restart_time\"?"));
  o.vary = {};
  o.ci_target = -1;
  CHECK_THROWS_AS(sweep(o), scenario::ScenarioError);
  CHECK_FALSE(std::filesystem::exists(dir / "out"));
}

TEST_CASE("sweep: an existing sweep is never overwritten nor resumed as another", "[app][sweep]") {
  testing::ScratchDir dir("sweep-guard");
  const std::string scen = testing::write_json(dir / "s.json", testing::two_policy_scenario("30d"));
  SweepOptions o = options(scen, dir / "out", 2);
  o.seeds = 2;
  REQUIRE(sweep(o) == 0);
  const std::string before = testing::read_text(dir / "out/results.csv");
  CHECK_THROWS_WITH(sweep(o), Catch::Contains("already holds a sweep"));
  o.resume = true;
  o.vary = {"policies.0.restart_time=1m,10m"};
  CHECK_THROWS_WITH(sweep(o), Catch::Contains("different sweep (it differs in: vary)"));
  o.vary = options(scen, "", 1).vary;
  o.seeds = 3;
  CHECK_THROWS_WITH(sweep(o), Catch::Contains("seeds"));
  CHECK(testing::read_text(dir / "out/results.csv") == before);
  o.seeds = 2;
  REQUIRE(sweep(o) == 0);  // resuming a finished sweep only rewrites its files
  CHECK(testing::read_text(dir / "out/results.csv") == before);
}

}  // namespace
}  // namespace goodsim::app::sweep
