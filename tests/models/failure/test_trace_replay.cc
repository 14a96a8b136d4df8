// trace_replay: the CSV format, its error messages, and exact replay.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "models/failure/trace_replay.h"
#include "sim/scenario/error.h"
#include "tests/support/scenarios.h"

namespace goodsim::models::failure {
namespace {

using core::Duration;

// 2 sites x 2 slices x 2 hosts x 4 chips: 32 chips, 8 hosts, 4 slices.
cluster::Layout test_layout() { return cluster::Layout(4, 2, {{"dc-a", 2}, {"dc-b", 2}}); }

Trace parse(const std::string& text) {
  std::istringstream in(text);
  return parse_trace(in, "t.csv", test_layout());
}

// Every ClusterState change, as "t=<s> fail|repair <domain>:<id> <cause>".
struct ChangeLog : cluster::ClusterObserver {
  const cluster::ClusterState* state = nullptr;
  std::vector<std::string> lines;
  void on_cluster_change(const cluster::ClusterChange& c) override {
    lines.push_back(fmt::format("t={} {} {}:{}{}", c.time.seconds_f(), c.failed ? "fail" : "repair",
                                cluster::domain_name(c.domain), c.id,
                                c.failed ? " " + state->cause_name(c.cause) : ""));
  }
};

std::vector<std::string> replay(const std::string& text, double horizon_s) {
  const cluster::Layout layout = test_layout();
  cluster::Network network;
  const scenario::JobSpec job{1, 1, Duration::seconds(1), std::nullopt};
  const std::string name = "test";
  core::Simulation sim(1);
  cluster::ClusterState state(layout);
  ChangeLog log;
  log.state = &state;
  state.add_observer(&log);
  RunContext ctx{sim, state, network, job, nullptr, name};
  std::istringstream in(text);
  TraceReplayConfig config{"t.csv", std::make_shared<const Trace>(parse_trace(in, "t.csv", layout))};
  TraceReplay injector(config, "failures.trace");
  injector.start(ctx);
  sim.run_until(core::SimTime::zero() + Duration::from_seconds(horizon_s));
  CHECK(injector.failures() == static_cast<uint64_t>(std::count_if(
                                   log.lines.begin(), log.lines.end(),
                                   [](const std::string& l) { return l.find(" fail ") != std::string::npos; })));
  return log.lines;
}

TEST_CASE("trace rows parse into sorted outages with interned causes", "[models][trace]") {
  const Trace t = parse(
      "# a comment, then the header\n"
      "time,duration,target,cause\r\n"
      "2h,30m,chip:31,faulty GPU\n"
      "\n"
      "60,90,host:7,\"NIC, flapping\"\n"
      "1h30m,1d,slice:3,HBM\n"
      "2h,1h,site:dc-b,faulty GPU\n"
      "2h, 0 ,site:0,\n");
  REQUIRE(t.outages.size() == 5);
  CHECK(t.causes == std::vector<std::string>{"", "faulty GPU", "NIC, flapping", "HBM"});
  const TraceOutage& first = t.outages[0];
  CHECK(first.time == Duration::seconds(60));
  CHECK(first.duration == Duration::seconds(90));
  CHECK(first.domain == cluster::Domain::kHost);
  CHECK(first.id == 7);
  CHECK(first.line == 5);
  CHECK(t.outages[1].time == Duration::minutes(90));
  CHECK(t.outages[1].duration == Duration::days(1));
  // Equal times keep file order: the chip (line 3), then both sites.
  CHECK(t.outages[2].domain == cluster::Domain::kChip);
  CHECK(t.outages[3].domain == cluster::Domain::kSite);
  CHECK(t.outages[3].id == 1);
  CHECK(t.outages[4].id == 0);
  CHECK(t.outages[4].duration == Duration::zero());
  CHECK(t.outages[4].cause == 0);
}

TEST_CASE("the cause column is optional and columns may come in any order", "[models][trace]") {
  const Trace t = parse("target,time,duration\nchip:1,10s,5s\n");
  REQUIRE(t.outages.size() == 1);
  CHECK(t.outages[0].id == 1);
  CHECK(t.outages[0].time == Duration::seconds(10));
  CHECK(t.causes.size() == 1);
  CHECK(parse("time,duration,target,cause\n").outages.empty());
}

TEST_CASE("trace replay reproduces the trace exactly", "[models][trace]") {
  const auto lines = replay(
      "time,duration,target,cause\n"
      "1h,30m,chip:5,faulty GPU\n"
      "1h,2h,host:1,NIC\n"      // covers chip 5 again: outages stack
      "10m,1h,slice:2,\n"
      "3h,10m,site:dc-b,power\n"
      "3h,1s,chip:5,faulty GPU\n"
      "9h,1h,chip:0,after the horizon\n",
      5 * 3600);
  // At one instant failures (file order) run before repairs.
  const std::vector<std::string> expected = {
      "t=600 fail slice:2 unspecified",
      "t=3600 fail chip:5 faulty GPU",
      "t=3600 fail host:1 NIC",
      "t=4200 repair slice:2",
      "t=5400 repair chip:5",
      "t=10800 fail site:1 power",
      "t=10800 fail chip:5 faulty GPU",
      "t=10800 repair host:1",
      "t=10801 repair chip:5",
      "t=11400 repair site:1",
  };
  CHECK(lines == expected);
}

TEST_CASE("a whole run counts every trace outage by cause", "[models][trace]") {
  const auto dir = std::filesystem::temp_directory_path() / "goodsim_test_trace";
  std::filesystem::create_directories(dir / "traces");
  std::ofstream(dir / "traces" / "t.csv") << "time,duration,target,cause\n"
                                            "1h,1h,chip:3,HBM\n"
                                            "2h,1h,chip:4,HBM\n"
                                            "3h,1h,host:2,software\n";
  nlohmann::json doc = testing::small_scenario("1d", "", "", "5m");
  doc["failures"].push_back({{"type", "trace_replay"}, {"file", "traces/t.csv"}});
  doc["policies"].push_back({{"name", "dp2"}, {"type", "data_parallel"}, {"restart_time", "1h"}});
  const auto prepared = testing::prepare_doc(doc, (dir / "s.json").string());
  const output::RunResult run = run_scenario(prepared, 1, nullptr);
  for (const output::PolicyResult& p : run.policies) {
    CHECK(p.failures == 3);
    using Counts = std::vector<std::pair<std::string, uint64_t>>;
    CHECK(p.failure_causes == Counts{{"HBM", 2}, {"software", 1}});
  }
  CHECK(run.policies[0].fingerprint != run.policies[1].fingerprint);
  // The trace does not depend on the seed; a run does not depend on anything else.
  const output::RunResult again = run_scenario(prepared, 1, nullptr);
  const output::RunResult other_seed = run_scenario(prepared, 2, nullptr);
  CHECK(again.policies[0].fingerprint == run.policies[0].fingerprint);
  CHECK(other_seed.policies[0].failure_causes == run.policies[0].failure_causes);
  // An empty trace injects nothing.
  std::ofstream(dir / "traces" / "t.csv") << "time,duration,target,cause\n";
  const auto empty = testing::prepare_doc(doc, (dir / "s.json").string());
  CHECK(run_policy(empty, 0, 1, nullptr).failures == 0);
  std::filesystem::remove_all(dir);
}

struct BadRow {
  std::string row;
  std::string where;
  std::string fragment;
};

TEST_CASE("malformed trace rows name the line and column", "[models][trace]") {
  const std::vector<BadRow> cases = {
      {"1h,3 parsecs,chip:1,x", "line 3, column 2 (duration)", "unknown unit \"parsecs\""},
      {"soon,1h,chip:1,x", "line 3, column 1 (time)", "expected a duration"},
      {"-5,1h,chip:1,x", "line 3, column 1 (time)", "expected a finite duration >= 0"},
      {"1h,nan,chip:1,x", "line 3, column 2 (duration)", "expected a finite duration >= 0"},
      {"1h,1h,rack:1,x", "line 3, column 3 (target)", "unknown target kind \"rack\""},
      {"1h,1h,chp:1,x", "line 3, column 3 (target)", "did you mean \"chip\"?"},
      {"1h,1h,chip 1,x", "line 3, column 3 (target)", "expected a target like chip:12"},
      {"1h,1h,chip:x1,x", "line 3, column 3 (target)", "expected a whole-number id"},
      {"1h,1h,chip:32,x", "line 3, column 3 (target)",
       "chip 32 is out of range: the cluster has 32 chips (ids 0 to 31)"},
      {"1h,1h,slice:4,x", "line 3, column 3 (target)", "slice 4 is out of range"},
      {"1h,1h,site:dc-c,x", "line 3, column 3 (target)", "did you mean \"dc-a\"?"},
      {"1h,1h,site:2,x", "line 3, column 3 (target)", "site 2 is out of range"},
      {"1h,1h", "line 3, column 3 (target)", "missing field: the header has 4 columns, this row 2"},
      {"1h,1h,chip:1,x,y", "line 3, column 5", "extra field \"y\""},
      {"1h,1h,chip:1,\"GPU", "line 3, column 4", "unterminated quoted field"},
      {"1h,1h,chip:1,\"GPU\" HBM", "line 3, column 4", "expected a comma after the closing quote"},
  };
  for (const BadRow& c : cases) {
    INFO(c.row);
    try {
      parse("time,duration,target,cause\n1h,1h,chip:0,ok\n" + c.row + "\n");
      FAIL("accepted a malformed row");
    } catch (const scenario::ScenarioError& e) {
      INFO(e.what());
      CHECK(e.file() == "t.csv");
      CHECK(e.path() == c.where);
      CHECK(e.message().find(c.fragment) != std::string::npos);
    }
  }
}

TEST_CASE("a bad or missing header is rejected", "[models][trace]") {
  CHECK_THROWS_WITH(parse("time,duraton,target\n"),
                    Catch::Contains("line 1, column 2: unknown column \"duraton\"") &&
                        Catch::Contains("did you mean \"duration\"?"));
  CHECK_THROWS_WITH(parse("1h,1h,chip:1,x\n"), Catch::Contains("unknown column \"1h\" in the header"));
  CHECK_THROWS_WITH(parse("time,cause,duration\n"),
                    Catch::Contains("line 1: the header row has no \"target\" column"));
  CHECK_THROWS_WITH(parse("time,time,duration,target\n"), Catch::Contains("appears twice"));
  CHECK_THROWS_WITH(parse("# only a comment\n"), Catch::Contains("t.csv: empty trace"));
}

TEST_CASE("trace files resolve against the scenario's directory", "[models][trace]") {
  nlohmann::json doc = testing::small_scenario("1d", "", "", "5m");
  doc["failures"].push_back({{"type", "trace_replay"}, {"file", "traces/example.csv"}});
  const std::string shipped = std::string(GOODSIM_SOURCE_DIR) + "/scenarios/x.json";
  CHECK_THROWS_WITH(testing::prepare_doc(doc, "elsewhere/x.json"),
                    Catch::Contains("failures.0.file: trace file "
                                    "\"elsewhere/traces/example.csv\": cannot open"));
  // The shipped example trace addresses a larger cluster than this one.
  CHECK_THROWS_WITH(testing::prepare_doc(doc, shipped), Catch::Contains("out of range"));
}

}  // namespace
}  // namespace goodsim::models::failure
