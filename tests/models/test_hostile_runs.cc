// Hostile but valid scenarios: each case reproduces an abort, hang or blow-up of a whole
// run (inputs in tests/regress/) and checks that it now runs correctly or is refused
// before anything is allocated.
#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <sstream>
#include <string>

#include "models/failure/trace_replay.h"
#include "models/resource_estimate.h"
#include "sim/cluster/cluster_state.h"
#include "sim/scenario/error.h"
#include "sim/output/summary.h"
#include "sim/scenario/json_file.h"
#include "tests/support/scenarios.h"

namespace goodsim::models {
namespace {

const std::filesystem::path kRegress = std::filesystem::path(GOODSIM_SOURCE_DIR) / "tests/regress";

PreparedScenario prepare_regress(const std::string& name) {
  const std::string file = (kRegress / name).string();
  return testing::prepare_doc(scenario::load_json_file(file), file);
}

// The books of every policy balance: the categories sum to chips x horizon.
void check_books(const output::RunResult& run) {
  for (const output::PolicyResult& p : run.policies) {
    INFO(p.name);
    double total = p.goodput * static_cast<double>(run.chips) * run.horizon_s;
    for (const auto& [category, chip_s] : p.badput) total += chip_s;
    CHECK(total == Approx(static_cast<double>(run.chips) * run.horizon_s).epsilon(1e-9));
    CHECK(p.goodput >= 0);
    CHECK(p.goodput <= 1);
  }
}

TEST_CASE("hostile: decoupled_diloco books lost work it actually booked as productive",
          "[models][hostile]") {
  // Both aborted with "reclassifying more chip-time than the category holds".
  for (const char* name : {"ledger_check_decoupled_diloco_min.json",
                           "ledger_check_decoupled_diloco_min1.json"}) {
    INFO(name);
    const PreparedScenario p = prepare_regress(name);
    for (uint64_t seed = 1; seed <= 20; ++seed) check_books(run_scenario(p, seed, nullptr));
  }
}

TEST_CASE("hostile: a run that reaches --max-events stops with a message",
          "[models][hostile]") {
  nlohmann::json doc = testing::small_scenario("1s", "1ns", "1h", "5m");
  PreparedScenario p = testing::prepare_doc(doc);
  const ResourceEstimate e = estimate_resources(p);
  CHECK(e.events > 1e10);  // 64 chips failing every nanosecond for a second
  CHECK_THROWS_WITH(enforce_limits(p, e, ResourceLimits{}),
                    Catch::Contains("more than --max-events 1e+09"));
  p.max_events = 10'000;  // the guard alone, as if the estimate had been too low
  CHECK_THROWS_WITH(run_scenario(p, 1, nullptr),
                    Catch::Contains("was stopped after 10000 events"));
}

TEST_CASE("hostile: the event estimate follows the failure rate", "[models][hostile]") {
  // 64 chips, mtbf 10 days, 1,000 days: 6,400 expected failures, and as many repairs.
  const nlohmann::json doc = testing::small_scenario("1000d", "10d", "1h", "5m");
  const PreparedScenario p = testing::prepare_doc(doc);
  const ResourceEstimate e = estimate_resources(p);
  const double samples = 201;  // horizon / 200, both ends
  CHECK(e.events_per_run == Approx(2 * 6400 + samples).epsilon(1e-9));
  // Repairs of 1 h against a 10-day mtbf thin out only ~0.4% of arrivals: the observed
  // count stays within 5 standard errors (sd = 80) of the estimate.
  const output::RunResult run = run_scenario(p, 3, nullptr);
  CHECK(std::abs(static_cast<double>(run.policies[0].failures) - 6400) < 5 * 80 + 0.005 * 6400);
}

TEST_CASE("hostile: the memory estimate covers the per-chip and per-slice tables",
          "[models][hostile]") {
  nlohmann::json doc = testing::small_scenario("1d", "", "1h", "5m");
  doc["cluster"] = {{"chips", 1e9}, {"chips_per_host", 1}, {"hosts_per_slice", 1}};
  PreparedScenario p = testing::prepare_doc(doc);  // O(sites): nothing per slice yet
  const ResourceEstimate e = estimate_resources(p);
  CHECK(e.bytes >= 5e9);  // a depth byte per chip and a down-chip count per slice
  CHECK_THROWS_WITH(enforce_limits(p, e, ResourceLimits{}),
                    Catch::Contains("more than --max-memory 8GiB"));
}

TEST_CASE("hostile: causes are interned in O(log n) with 32-bit ids", "[models][hostile]") {
  // 65,535 distinct causes used to trip a 16-bit limit.
  const cluster::Layout layout(4, 2, {{"a", 2}});
  cluster::ClusterState state(layout);
  for (uint32_t i = 1; i <= 100'000; ++i) {
    REQUIRE(state.intern_cause("cause-" + std::to_string(i)) == i);
  }
  CHECK(state.intern_cause("cause-70000") == 70'000u);
  CHECK(state.cause_name(99'999) == "cause-99999");
  CHECK(state.intern_cause("unspecified") == cluster::kUnspecifiedCause);
}

TEST_CASE("hostile: a trace with 70,000 distinct causes parses and replays",
          "[models][hostile]") {
  std::ostringstream csv;
  csv << "time,duration,target,cause\n";
  for (int i = 0; i < 70'000; ++i) csv << i << "s,1s,chip:" << i % 16 << ",c" << i << "\n";
  std::istringstream in(csv.str());
  const failure::Trace trace = failure::parse_trace(in, "t.csv", cluster::Layout(4, 2, {{"a", 2}}));
  CHECK(trace.causes.size() == 70'001);
  std::istringstream bad("time,duration,target,cause\n1s,1s,chip:0,caf\xC3\n");
  CHECK_THROWS_WITH(failure::parse_trace(bad, "t.csv", cluster::Layout(4, 2, {{"a", 2}})),
                    "t.csv: line 2, column 4 (cause): the cause is not valid UTF-8 text");
}

TEST_CASE("hostile: 300 overlapping outages of one chip run to the end",
          "[models][hostile]") {
  // Aborted (exit 134) when a chip's outage depth passed 255.
  const PreparedScenario p = prepare_regress("deep_overlap_300.json");
  const output::RunResult run = run_scenario(p, 1, nullptr);
  check_books(run);
  REQUIRE(run.policies.size() == 1);
  CHECK(run.policies[0].failures == 300);
  // Chip 3 is down from 60 s until the last of the day-long outages ends, 359 s + 1 d.
  double down = 0;
  for (const auto& [category, chip_s] : run.policies[0].badput) {
    if (category == "down") down = chip_s;
  }
  CHECK(down == Approx(86'400 + 299));
}

TEST_CASE("hostile: a summary with 200,000 distinct causes is written in linear time",
          "[models][hostile]") {
  // ordered_json's operator[] searched the causes linearly: 200,000 took about 2 minutes.
  output::RunResult run;
  run.policies.emplace_back();
  for (uint64_t i = 0; i < 200'000; ++i) {
    run.policies[0].failure_causes.emplace_back("cause-" + std::to_string(i), i);
  }
  const auto start = std::chrono::steady_clock::now();
  const nlohmann::ordered_json doc = output::summary_json(run);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(took < 5.0);  // about 0.1 s; the quadratic version took minutes
  const auto& causes = doc["policies"][0]["failure_causes"];
  REQUIRE(causes.size() == 200'000);
  CHECK(causes.begin().key() == "cause-0");  // in the order the causes were declared
  CHECK(causes["cause-199999"] == 199'999);
}

}  // namespace
}  // namespace goodsim::models
