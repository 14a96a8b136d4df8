// What a run reports beyond its headline figures: ETTR, diagnostics (slices
// down, spares, checkpoints, time by state), per-learner results, resize
// events, and the progress callback (which must not change a run).
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <string>
#include <vector>

#include <unistd.h>

#include "models/slice_down_tracker.h"
#include "sim/output/summary.h"
#include "sim/scenario/json_file.h"
#include "tests/support/scenarios.h"

namespace goodsim::models {
namespace {

nlohmann::json shipped(const std::string& name) {
  return scenario::load_json_file(std::string(GOODSIM_SOURCE_DIR) + "/scenarios/" + name);
}

double sum_seconds(const std::vector<std::pair<std::string, double>>& v) {
  double total = 0;
  for (const auto& [name, s] : v) total += s;
  return total;
}

cluster::ClusterChange change(double t, bool failed, const std::vector<cluster::SliceId>& flipped) {
  return {core::SimTime::zero() + core::Duration::from_seconds(t), cluster::Domain::kChip, 0,
          failed, cluster::kUnspecifiedCause, flipped};
}

TEST_CASE("the slice-down tracker integrates down slices exactly", "[models][diagnostics]") {
  // One spare. Slices down: 0 on [0,10), 2 on [10,30), 1 on [30,60), 0 on [60,100].
  SliceDownTracker t(1, 0);
  const std::vector<cluster::SliceId> two = {3, 5}, one = {5};
  t.on_cluster_change(change(10, true, two));
  t.on_cluster_change(change(30, false, one));
  t.on_cluster_change(change(60, false, {3}));
  output::Diagnostics d;
  t.fill(d, core::SimTime::zero() + core::Duration::seconds(100));
  CHECK(d.slices_down_mean == Approx((2 * 20 + 1 * 30) / 100.0).epsilon(1e-12));
  CHECK(d.slices_down_max == 2);
  CHECK(d.spares_exhausted_s == Approx(20.0).epsilon(1e-12));  // only 2 > 1 spare
  CHECK(d.spare_slices == 1);
}

TEST_CASE("ETTR is productive chip-time over the job's slices", "[models][diagnostics]") {
  const auto prepared = testing::prepare_doc(shipped("demo.json"), "demo.json");
  const output::RunResult run = run_scenario(prepared, 1, nullptr);
  const double job_chips = 60.0 * 256, chips = 64.0 * 256;  // 4 of 64 slices are spares
  for (const output::PolicyResult& p : run.policies) {
    INFO(p.name);
    CHECK(p.ettr == Approx(p.goodput * chips / job_chips).epsilon(1e-12));
    CHECK(p.ettr <= 1.0);
    CHECK(p.diagnostics.job_slices == 60);
    CHECK(p.diagnostics.end_s == run.horizon_s);
    // The job's states cover its whole run.
    CHECK(sum_seconds(p.diagnostics.time_by_state) == Approx(run.horizon_s).epsilon(1e-12));
  }
  // dp-30m checkpoints every 30 minutes of compute: 300 steps of 6 s.
  CHECK(run.policies[0].diagnostics.checkpoint_rule == "fixed");
  CHECK(*run.policies[0].diagnostics.checkpoint_interval_s == 1800.0);
  CHECK(run.policies[0].diagnostics.checkpoints > 100);
  // dp-daly's interval is the Daly value for its online MTTI estimate, not the fixed one.
  CHECK(run.policies[1].diagnostics.checkpoint_rule == "daly");
  REQUIRE(run.policies[1].diagnostics.checkpoint_interval_s.has_value());
  CHECK(*run.policies[1].diagnostics.checkpoint_interval_s != 1800.0);
  // Every policy saw the same failures, hence the same slices down.
  CHECK(run.policies[0].diagnostics.slices_down_mean == run.policies[2].diagnostics.slices_down_mean);
  CHECK(run.policies[0].diagnostics.slices_down_max > 0);
}

// 5 slices of 4 chips (the last a spare when `spares`); slice 2 fails at 100.5 s for
// 1,000 s; data_parallel swaps in 20 s and restarts in 30 s; 500 s (docs/metrics.md).
nlohmann::json spare_example(int slices, int spares) {
  return {{"name", "spares"},
          {"horizon", "500s"},
          {"cluster", {{"chips", 4 * slices}, {"chips_per_host", 4}, {"hosts_per_slice", 1},
                       {"spare_slices", spares}}},
          {"job", {{"params", 1e9}, {"tokens_per_step", 1e6}, {"step_time", "1s"}}},
          {"chaos", {{{"at", "100500ms"}, {"action", "fail"}, {"target", {{"slice", 2}}},
                      {"duration", "1000s"}}}},
          {"policies", {{{"name", "dp"}, {"type", "data_parallel"}, {"restart_time", "30s"},
                         {"swap_time", "20s"}}}}};
}

TEST_CASE("job goodput (ETTR) rises with a spare while fleet goodput counts it", "[models][diagnostics]") {
  const output::PolicyResult with =
      run_scenario(testing::prepare_doc(spare_example(5, 1)), 1, nullptr).policies[0];
  // Productive 16 x (100 + 349.5) = 7,192 chip-s of 16 job chips and 20 chips.
  CHECK(with.ettr == Approx(7192.0 / (16 * 500)).epsilon(1e-12));
  CHECK(with.goodput == Approx(7192.0 / (20 * 500)).epsilon(1e-12));
  const output::PolicyResult without =
      run_scenario(testing::prepare_doc(spare_example(4, 0)), 1, nullptr).policies[0];
  // No spare: the job waits for the repair past the horizon; 16 x 100 chip-s.
  CHECK(without.ettr == Approx(0.2).epsilon(1e-12));
  CHECK(without.goodput == Approx(0.2).epsilon(1e-12));
  // The summary names fleet goodput explicitly.
  output::RunResult run;
  run.policies.push_back(with);
  const auto j = output::summary_json(run);
  CHECK(j["policies"][0]["fleet_goodput"].get<double>() == with.goodput);
  CHECK(j["policies"][0]["ettr"].get<double>() == with.ettr);
}

TEST_CASE("a progress callback slices a run without changing it", "[models][runner]") {
  const auto prepared = testing::prepare_doc(shipped("demo.json"), "demo.json");
  size_t calls = 0;
  double last = 0;
  const RunProgress progress = [&](const std::string&, double sim_s, double horizon_s,
                                   uint64_t) {
    ++calls;
    CHECK(sim_s > last);
    CHECK(sim_s <= horizon_s);
    last = sim_s;
  };
  for (size_t i = 0; i < prepared.policies.size(); ++i) {
    const auto plain = run_policy(prepared, i, 3, nullptr);
    last = 0;
    const auto sliced = run_policy(prepared, i, 3, nullptr, nullptr, progress);
    CHECK(plain.fingerprint == sliced.fingerprint);
    CHECK(plain.goodput == sliced.goodput);
    CHECK(plain.events == sliced.events);
  }
  CHECK(calls == 3 * 1000);
}

TEST_CASE("multi-learner policies report each learner", "[models][diagnostics]") {
  nlohmann::json doc = shipped("heterogeneous.json");
  doc["horizon"] = "12h";
  const auto prepared = testing::prepare_doc(doc, GOODSIM_SOURCE_DIR "/scenarios/heterogeneous.json");
  const output::RunResult run = run_scenario(prepared, 1, nullptr);
  for (const output::PolicyResult& p : run.policies) {
    INFO(p.name);
    REQUIRE(p.learners.size() == 8);
    uint64_t chips = 0;
    double tokens = 0;
    double least_stale = 1e300, most_stale = -1;
    for (const output::LearnerResult& l : p.learners) {
      chips += l.chips;
      tokens += l.tokens;
      // Every learner trained for 12 hours, so each had contributions merged; the policy's
      // mean over all contributions lies between the learners' means.
      const std::optional<double> stale = l.extra.number("mean_staleness");
      REQUIRE(stale.has_value());
      least_stale = std::min(least_stale, *stale);
      most_stale = std::max(most_stale, *stale);
      CHECK(sum_seconds(l.time_by_mode) == Approx(p.diagnostics.end_s).epsilon(1e-12));
      CHECK(l.goodput >= 0);
      CHECK(l.goodput <= 1);
      CHECK(l.steps > 0);
    }
    CHECK(chips == uint64_t{p.diagnostics.job_slices} * prepared.layout.chips_per_slice());
    const std::optional<double> mean = p.diagnostics.extra.number("mean_staleness");
    REQUIRE(mean.has_value());
    CHECK(*mean >= least_stale - 1e-9);
    CHECK(*mean <= most_stale + 1e-9);
    CHECK(tokens > 0);
  }
}

TEST_CASE("diloco learners' goodput adds up to the policy's", "[models][diagnostics]") {
  nlohmann::json doc = shipped("multi-datacenter.json");
  doc["horizon"] = "2d";
  const auto prepared =
      testing::prepare_doc(doc, GOODSIM_SOURCE_DIR "/scenarios/multi-datacenter.json");
  const output::RunResult run = run_scenario(prepared, 1, nullptr);
  size_t checked = 0;
  for (const output::PolicyResult& p : run.policies) {
    if (p.type != "diloco") continue;
    INFO(p.name);
    double productive = 0;
    for (const output::LearnerResult& l : p.learners) {
      productive += l.goodput * static_cast<double>(l.chips) * p.diagnostics.end_s;
    }
    CHECK(productive == Approx(p.goodput * static_cast<double>(run.chips) * p.diagnostics.end_s)
                            .epsilon(1e-9));
    ++checked;
  }
  CHECK(checked > 0);
}

TEST_CASE("elastic resizes are in events.jsonl and chain up", "[models][runner]") {
  nlohmann::json doc = shipped("demo.json");
  doc["policies"] = nlohmann::json::array({doc["policies"][2]});  // elastic only
  const auto prepared = testing::prepare_doc(doc, "demo.json");
  const auto dir = std::filesystem::temp_directory_path() / "goodsim_test_resize";
  std::filesystem::create_directories(dir);
  output::EventLog log(dir / "events.jsonl");
  const output::RunResult run = run_scenario(prepared, 1, &log);
  log.commit();
  std::ifstream in(dir / "events.jsonl");
  int64_t slices = 60, resizes = 0;
  for (std::string line; std::getline(in, line);) {
    const auto j = nlohmann::json::parse(line);
    if (j["event"] != "resize") continue;
    CHECK(j["from_slices"].get<int64_t>() == slices);  // each starts where the last ended
    CHECK(j["to_slices"].get<int64_t>() != slices);
    slices = j["to_slices"].get<int64_t>();
    ++resizes;
  }
  // Each failure of a job slice shrinks the job once and its repair grows it back (at most).
  CHECK(resizes > 10);
  CHECK(static_cast<uint64_t>(resizes) <= 2 * run.policies[0].failures);
  std::filesystem::remove_all(dir);
}

TEST_CASE("decoupled_diloco learners' resizes are in events.jsonl", "[models][runner]") {
  nlohmann::json doc = shipped("heterogeneous.json");
  doc["policies"] = nlohmann::json::array({doc["policies"][1]});  // k1
  const auto prepared = testing::prepare_doc(doc, GOODSIM_SOURCE_DIR "/scenarios/heterogeneous.json");
  const auto dir = std::filesystem::temp_directory_path() /
                   ("goodsim_test_learner_resize_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  output::EventLog log(dir / "events.jsonl");
  const output::RunResult run = run_scenario(prepared, 1, &log);
  log.commit();
  std::ifstream in(dir / "events.jsonl");
  std::vector<int64_t> slices(8, 8);  // 8 learners of 8 slices
  int64_t resizes = 0;
  for (std::string line; std::getline(in, line);) {
    const auto j = nlohmann::json::parse(line);
    if (j["event"] != "resize") continue;
    const auto m = j["learner"].get<size_t>();
    REQUIRE(m < slices.size());
    CHECK(j["from_slices"].get<int64_t>() == slices[m]);  // each starts where the last ended
    slices[m] = j["to_slices"].get<int64_t>();
    ++resizes;
  }
  CHECK(resizes > 0);
  CHECK(static_cast<uint64_t>(resizes) <= 2 * run.policies[0].failures);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace goodsim::models
