// The chaos timeline: actions at exactly the scripted times on the right
// targets, partitions on the run's own network, learner targets, and the
// validation of entries.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "models/failure/chaos_script.h"
#include "sim/scenario/error.h"
#include "tests/support/scenarios.h"

namespace goodsim::models::failure {
namespace {

using core::Duration;
using nlohmann::json;

// 64 chips: 4 slices of 16 (4 chips x 4 hosts), slices 0-1 in dc-a, 2-3 in dc-b.
json two_site_doc(const json& chaos) {
  return {{"name", "chaos"},
          {"horizon", "12h"},
          {"cluster",
           {{"chips", 64},
            {"chips_per_host", 4},
            {"hosts_per_slice", 4},
            {"sites", {{{"name", "dc-a"}}, {{"name", "dc-b"}}}},
            {"links", {{{"from", "dc-a"}, {"to", "dc-b"}, {"bandwidth", "10Gbps"}}}}}},
          {"job", {{"params", 1e9}, {"tokens_per_step", 1e6}, {"step_time", "1s"}}},
          {"chaos", chaos},
          {"policies", {{{"name", "dp"}, {"type", "data_parallel"}, {"restart_time", "5m"}}}}};
}

// A policy with two learners (slices 0-1 and 2-3) that does nothing else.
class TwoLearners : public policy::Policy {
 public:
  void start(RunContext&) override {}
  void finish(core::SimTime) override {}
  policy::Progress progress(core::SimTime) const override { return {}; }
  std::optional<core::SimTime> target_reached_at() const override { return std::nullopt; }
  uint32_t learner_count() const override { return 2; }
  std::vector<cluster::SliceId> learner_slices(uint32_t k) const override {
    return {2 * k, 2 * k + 1};
  }
  const policy::ChipTimeLedger& ledger() const override { return ledger_; }
  const policy::OutageTracker& outages() const override { return outages_; }
  void on_cluster_change(const cluster::ClusterChange&) override {}

 private:
  policy::ChipTimeLedger ledger_{0};
  policy::OutageTracker outages_;
};

struct ChaosRun {
  std::vector<std::string> changes;  // "t=<s> fail|repair <domain>:<id> <cause>"
  std::vector<std::string> probes;   // "t=<s> wan=up|cut slow=<s0>,<s1>,<s2>,<s3>"
  bool prepared_network_untouched = false;
};

struct ChangeLog : cluster::ClusterObserver {
  const cluster::ClusterState* state = nullptr;
  std::vector<std::string>* lines = nullptr;
  void on_cluster_change(const cluster::ClusterChange& c) override {
    lines->push_back(fmt::format("t={} {} {}:{}{}", c.time.seconds_f(), c.failed ? "fail" : "repair",
                                 cluster::domain_name(c.domain), c.id,
                                 c.failed ? " " + state->cause_name(c.cause) : ""));
  }
};

// Plays the chaos list of `doc` against `policy` alone, probing the network
// and the slowdowns (after everything else) at each of `probe_h` hours.
ChaosRun run_chaos(const json& doc, std::unique_ptr<policy::Policy> policy,
                   const std::vector<double>& probe_h = {}) {
  // Parsed without the registry: learner targets are checked against `policy` only.
  const scenario::Scenario s = scenario::parse_scenario(doc, "test.json");
  const cluster::Layout layout = scenario::make_layout(s.cluster);
  const cluster::Network prepared_network = scenario::make_network(s.cluster);
  const ChaosTimeline timeline = parse_chaos(s, layout);
  ChaosRun out;
  core::Simulation sim(1);
  cluster::ClusterState state(layout);
  cluster::Network network = prepared_network;
  const std::string name = "p";
  RunContext ctx{sim, state, network, s.job, nullptr, name};
  ChangeLog log;
  log.state = &state;
  log.lines = &out.changes;
  state.add_observer(&log);
  policy->start(ctx);
  ChaosScript script(timeline);
  script.start(ctx, *policy);
  const core::HandlerId probe = sim.add_handler("probe", [&](const core::Event&) {
    std::vector<std::string> slow;
    for (cluster::SliceId slice = 0; slice < 4; ++slice) {
      slow.push_back(fmt::format("{}", state.slowdown().slice_slowdown(slice)));
    }
    out.probes.push_back(fmt::format("t={} wan={} slow={}", sim.now().seconds_f() / 3600,
                                     network.transfer_time(0, 1, 1e9) ? "up" : "cut",
                                     fmt::join(slow, ",")));
  });
  for (double h : probe_h) {
    sim.schedule_at(core::SimTime::zero() + Duration::from_seconds(h * 3600), core::kBandObserve,
                    probe);
  }
  sim.run_until(core::SimTime::zero() + s.horizon);
  CHECK(script.actions() == timeline.events.size());
  out.prepared_network_untouched = !prepared_network.site_partitioned(0) &&
                                   prepared_network.partition_count(0) == 0;
  return out;
}

ChaosRun run_chaos(const json& chaos, const std::vector<double>& probe_h = {}) {
  return run_chaos(two_site_doc(chaos), std::make_unique<TwoLearners>(), probe_h);
}

TEST_CASE("chaos failures happen at the scripted times on the right targets",
          "[models][chaos]") {
  const ChaosRun run = run_chaos(json::parse(R"([
      {"at": "2h", "action": "fail", "target": {"site": "dc-b"}, "duration": "1h"},
      {"at": "1h", "action": "fail", "target": {"chip": 3}, "duration": "10m", "cause": "power"},
      {"at": "4h", "action": "fail", "target": {"host": 5}, "duration": "30m"},
      {"at": "2h", "action": "fail", "target": {"slice": 1}, "duration": "1s"},
      {"at": "11h", "action": "fail", "target": {"chip": 0}, "duration": "5h"}
  ])"));
  const std::vector<std::string> expected = {
      "t=3600 fail chip:3 power",     "t=4200 repair chip:3",
      "t=7200 fail site:1 chaos",     "t=7200 fail slice:1 chaos",
      "t=7201 repair slice:1",        "t=10800 repair site:1",
      "t=14400 fail host:5 chaos",    "t=16200 repair host:5",
      "t=39600 fail chip:0 chaos",  // its repair falls after the horizon
  };
  CHECK(run.changes == expected);
}

TEST_CASE("a partition cuts the site's WAN routes for its duration, on the run's copy",
          "[models][chaos]") {
  const ChaosRun run = run_chaos(json::parse(R"([
      {"at": "5h", "action": "partition", "site": "dc-a", "duration": "20m"},
      {"at": "8h", "action": "partition", "site": "dc-b", "duration": "1h"},
      {"at": "8.5h", "action": "partition", "site": "dc-b", "duration": "1h"}
  ])"), {4.5, 5, 5.25, 5 + 1.0 / 3, 8.75, 9.25, 9.5});
  const std::vector<std::string> expected = {
      "t=4.5 wan=up slow=1,1,1,1",  "t=5 wan=cut slow=1,1,1,1",
      "t=5.25 wan=cut slow=1,1,1,1", "t=5.333333333333333 wan=up slow=1,1,1,1",
      "t=8.75 wan=cut slow=1,1,1,1", "t=9.25 wan=cut slow=1,1,1,1",  // overlapping partitions
      "t=9.5 wan=up slow=1,1,1,1",
  };
  CHECK(run.probes == expected);
  CHECK(run.changes.empty());  // a partition is not a failure
  CHECK(run.prepared_network_untouched);
}

TEST_CASE("slow actions change slice slowdowns for their duration", "[models][chaos]") {
  const ChaosRun run = run_chaos(json::parse(R"([
      {"at": "3h", "action": "slow", "target": {"slice": 2}, "factor": 1.5, "duration": "30m"},
      {"at": "3h", "action": "slow", "target": {"slice": 2}, "factor": 2, "duration": "1h"},
      {"at": "5h", "action": "slow", "target": {"site": "dc-a"}, "factor": 1.25, "duration": "1h",
       "mode": "slowest"},
      {"at": "7h", "action": "slow", "target": {"learner": 1}, "factor": 3, "duration": "1h"}
  ])"), {2.9, 3, 3.5, 4, 5, 6, 7, 8});
  const std::vector<std::string> expected = {
      "t=2.9 wan=up slow=1,1,1,1",   "t=3 wan=up slow=1,1,3,1",  // scale factors multiply
      "t=3.5 wan=up slow=1,1,2,1",   "t=4 wan=up slow=1,1,1,1",
      "t=5 wan=up slow=1.25,1.25,1,1", "t=6 wan=up slow=1,1,1,1",
      "t=7 wan=up slow=1,1,3,3",     "t=8 wan=up slow=1,1,1,1",
  };
  CHECK(run.probes == expected);
}

TEST_CASE("a learner target covers the learner's slices", "[models][chaos]") {
  const ChaosRun run = run_chaos(json::parse(R"([
      {"at": "6h", "action": "fail", "target": {"learner": 1}, "duration": "10m"}
  ])"));
  const std::vector<std::string> expected = {
      "t=21600 fail slice:2 chaos", "t=21600 fail slice:3 chaos",
      "t=22200 repair slice:2",     "t=22200 repair slice:3",
  };
  CHECK(run.changes == expected);
}

TEST_CASE("a learner the policy does not have is bad input", "[models][chaos]") {
  const json chaos = json::parse(R"([
      {"at": "1h", "action": "fail", "target": {"chip": 0}, "duration": "1m"},
      {"at": "6h", "action": "fail", "target": {"learner": 1}, "duration": "10m"}
  ])");
  // At prepare time, against each policy of the scenario (data_parallel has one learner).
  CHECK_THROWS_WITH(testing::prepare_doc(two_site_doc(chaos)),
                    "test.json: chaos.1.target.learner: learner 1 does not exist: policy \"dp\" "
                    "has 1 learner (0 to 0)");
  // And when the script starts against a policy.
  json ok = two_site_doc(chaos);
  ok["chaos"][1]["target"]["learner"] = 0;
  const PreparedScenario prepared = testing::prepare_doc(ok);
  ChaosTimeline timeline = prepared.chaos;
  timeline.events[1].target.id = 2;
  core::Simulation sim(1);
  cluster::ClusterState state(prepared.layout);
  cluster::Network network = prepared.network;
  const std::string name = "two";
  RunContext ctx{sim, state, network, prepared.scenario.job, nullptr, name};
  TwoLearners policy;
  ChaosScript script(timeline);
  CHECK_THROWS_WITH(script.start(ctx, policy), Catch::Contains("policy \"two\" has 2 learners"));
}

TEST_CASE("whole runs log chaos actions and count chaos failures", "[models][chaos]") {
  const json chaos = json::parse(R"([
      {"at": "2h", "action": "fail", "target": {"site": "dc-b"}, "duration": "1h"},
      {"at": "5h", "action": "partition", "site": "dc-a", "duration": "20m"},
      {"at": "6h", "action": "fail", "target": {"learner": 0}, "duration": "10m", "cause": "drill"}
  ])");
  const PreparedScenario prepared = testing::prepare_doc(two_site_doc(chaos));
  const auto dir = std::filesystem::temp_directory_path() / "goodsim_test_chaos";
  std::filesystem::create_directories(dir);
  output::EventLog log(dir / "events.jsonl");
  const output::PolicyResult r = run_policy(prepared, 0, 1, &log);
  log.commit();
  // The site outage, then the one learner of data_parallel: all four slices.
  CHECK(r.failures == 5);
  using Counts = std::vector<std::pair<std::string, uint64_t>>;
  CHECK(r.failure_causes == Counts{{"chaos", 1}, {"drill", 4}});
  std::vector<std::string> actions;
  std::ifstream in(dir / "events.jsonl");
  for (std::string line; std::getline(in, line);) {
    const json j = json::parse(line);
    if (j["event"] == "chaos_begin" || j["event"] == "chaos_end") {
      actions.push_back(fmt::format("{} {} {} {}", j["t"].get<double>(), j["event"].get<std::string>(),
                                    j["action"].get<std::string>(), j["target"].dump()));
    }
  }
  const std::vector<std::string> expected = {
      R"(7200 chaos_begin fail {"site":"dc-b"})",
      R"(10800 chaos_end fail {"site":"dc-b"})",
      R"(18000 chaos_begin partition {"site":"dc-a"})",
      R"(19200 chaos_end partition {"site":"dc-a"})",
      R"(21600 chaos_begin fail {"learner":0,"slices":[0,1,2,3]})",
      R"(22200 chaos_end fail {"learner":0,"slices":[0,1,2,3]})",
  };
  CHECK(actions == expected);
  // Same scenario, same seed: the same run.
  CHECK(run_policy(prepared, 0, 1, nullptr).fingerprint == r.fingerprint);
  std::filesystem::remove_all(dir);
}

struct BadEntry {
  std::string entry;
  std::string message;
};

TEST_CASE("invalid chaos entries are rejected with their path", "[models][chaos]") {
  const std::vector<BadEntry> cases = {
      {R"({"at": "1h", "action": "explode", "target": {"chip": 1}, "duration": "1m"})",
       R"(chaos.0.action: expected one of "fail", "slow", "partition", got "explode")"},
      {R"({"at": "1h", "action": "fial", "target": {"chip": 1}, "duration": "1m"})",
       R"(did you mean "fail"?)"},
      {R"({"at": "1h", "action": "fail", "target": {"chip": 1}})",
       R"(chaos.0: missing required key "duration")"},
      {R"({"at": "1h", "action": "fail", "target": {"chip": 1}, "duration": "0s"})",
       "chaos.0.duration:"},
      {R"({"action": "fail", "target": {"chip": 1}, "duration": "1m"})",
       R"(chaos.0: missing required key "at")"},
      {R"({"at": "12h", "action": "fail", "target": {"chip": 1}, "duration": "1m"})",
       "chaos.0.at: 12h is not before the horizon (12h)"},
      {R"({"at": "1h", "action": "partition", "site": "dc-c", "duration": "1m"})",
       R"(chaos.0.site: expected one of "dc-a", "dc-b", got "dc-c"; did you mean "dc-a"?)"},
      {R"({"at": "1h", "action": "fail", "target": {"site": "dcb"}, "duration": "1m"})",
       R"(chaos.0.target.site: expected one of "dc-a", "dc-b", got "dcb"; did you mean "dc-b"?)"},
      {R"({"at": "1h", "action": "fail", "target": {"slcie": 1}, "duration": "1m"})",
       R"(chaos.0.target.slcie: unknown key; did you mean "slice"?)"},
      {R"({"at": "1h", "action": "fail", "target": {"chip": 1, "host": 1}, "duration": "1m"})",
       R"(chaos.0.target: expected exactly one of "chip", "host", "slice", "site" (a name) or )"
       R"("learner", got 2)"},
      {R"({"at": "1h", "action": "fail", "target": {"chip": 64}, "duration": "1m"})",
       "chaos.0.target.chip: chip 64 is out of range: the cluster has 64 chips (ids 0 to 63)"},
      {R"({"at": "1h", "action": "fail", "duration": "1m"})",
       R"(chaos.0: missing required key "target")"},
      {R"({"at": "1h", "action": "fail", "target": {"chip": 1}, "duration": "1m", "factor": 2})",
       R"(chaos.0.factor: unknown key)"},
      {R"({"at": "1h", "action": "slow", "target": {"chip": 1}, "duration": "1m", "factor": 0.5})",
       "chaos.0.factor:"},
      {R"({"at": "1h", "action": "slow", "target": {"chip": 1}, "duration": "1m"})",
       R"(chaos.0: missing required key "factor")"},
      {R"({"at": "1h", "action": "partition", "target": {"site": "dc-a"}, "duration": "1m"})",
       R"(chaos.0: missing required key "site")"},
  };
  for (const BadEntry& c : cases) {
    INFO(c.entry);
    const json doc = two_site_doc(json::array({json::parse(c.entry)}));
    CHECK_THROWS_WITH(testing::prepare_doc(doc), Catch::Contains(c.message));
  }
}

}  // namespace
}  // namespace goodsim::models::failure
