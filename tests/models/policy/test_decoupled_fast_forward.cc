// decoupled_diloco's fast-forward (decoupled_diloco_syncer_skip.cc) against
// stepping every round: on random scenarios the summaries and time series
// must be identical field for field (only the fingerprint and the event count
// may differ), and the fast-forward must actually skip rounds.
#include <catch2/catch.hpp>

#include <string>

#include "sim/core/rng.h"
#include "sim/output/summary.h"
#include "tests/support/scenarios.h"

namespace goodsim::models {
namespace {

using nlohmann::json;

// A random decoupled_diloco scenario: schedule, quorum, late fragments,
// sites, failure rate, stragglers and scavenging windows all drawn.
json random_decoupled(core::Rng& rng) {
  auto below = [&rng](uint64_t n) { return static_cast<int>(rng.next_u64() % n); };
  auto pick = [&below](std::initializer_list<int> v) { return *(v.begin() + below(v.size())); };
  const int learners = pick({1, 2, 3, 4, 8});
  const int sites = pick({1, 1, 1, 2, 3});
  const int slices = learners * pick({2, 3, 4}) + pick({0, 1});
  const int h = pick({4, 6, 8, 24});
  const int p = std::min(h, pick({1, 2, 4, 6, 24}));
  const int tau = std::min(h, pick({0, 1, 2}));
  json policy = {{"name", "d"},
                 {"type", "decoupled_diloco"},
                 {"learners", learners},
                 {"inner_steps", h},
                 {"fragments", p},
                 {"overlap_steps", tau},
                 {"quorum", 1 + below(static_cast<uint64_t>(learners))},
                 {"late_fragments", rng.uniform01() < 0.7 ? "wait" : "skip"}};
  if (rng.uniform01() < 0.5) policy["upscale_every"] = pick({60, 600});
  if (rng.uniform01() < 0.2) {
    policy["schedule"] = {{{"learner", learners - 1}, {"join", "2h"}, {"leave", "9h"}}};
  }
  json cluster = {{"chips", 8 * slices}, {"chips_per_host", 4}, {"hosts_per_slice", 2}};
  if (sites > 1) {
    auto site = [](int s) {  // appended, not "s" + ...: GCC 12 warns (-Wrestrict) on that
      std::string name = "s";
      name += std::to_string(s);
      return name;
    };
    cluster["sites"] = json::array();
    for (int s = 0; s < sites; ++s) cluster["sites"].push_back({{"name", site(s)}});
    cluster["links"] = json::array();
    for (int s = 0; s + 1 < sites; ++s) {
      cluster["links"].push_back({{"from", site(s)},
                                  {"to", site(s + 1)},
                                  {"bandwidth", pick({1, 10, 100}) * 1e9},
                                  {"latency", "20ms"}});
    }
  }
  json doc = {{"name", "ff"},
              {"seed", 1 + below(1000)},
              {"horizon", pick({6, 12, 24}) * 3600},
              {"cluster", cluster},
              {"job",
               {{"params", pick({1, 10, 100}) * 1e8},
                {"tokens_per_step", 1e6},
                {"step_time", pick({1, 2, 3})},
                {"intra_site_bandwidth", pick({1, 10, 100}) * 1e9}}},
              {"failures", json::array()},
              {"policies", {policy}}};
  if (rng.uniform01() < 0.8) {
    doc["failures"].push_back({{"type", "exponential_failures"},
                               {"mtbf", pick({30, 100, 300, 3000}) * 86400},
                               {"repair_time", pick({60, 1800})}});
  }
  if (rng.uniform01() < 0.3) {
    doc["stragglers"] = {{{"type", "transient_stragglers"},
                          {"mtbe", pick({30, 300}) * 86400},
                          {"duration", "10m"},
                          {"slowdown", 0.5}}};
  }
  return doc;
}

// A random scenario in which the gate may settle learners (one site, K = 1,
// "wait", tau >= 1), with fragments that reach the learners in somewhat less
// or more than tau steps.
json random_settling(core::Rng& rng) {
  json doc = random_decoupled(rng);
  auto pick = [&rng](std::initializer_list<int> v) {
    return *(v.begin() + static_cast<std::ptrdiff_t>(rng.next_u64() % v.size()));
  };
  doc["cluster"].erase("sites");
  doc["cluster"].erase("links");
  json& policy = doc["policies"][0];
  policy["quorum"] = 1;
  policy["late_fragments"] = "wait";
  policy["overlap_steps"] = std::min(policy["inner_steps"].get<int>(), pick({1, 2}));
  doc["job"]["params"] = pick({1, 3, 10}) * 1e8;
  doc["job"]["intra_site_bandwidth"] = pick({1, 10}) * 1e9;
  return doc;
}

// Whether the gate may settle a learner of random_settling's scenario at its
// nominal pace: a merge (pull and broadcast of a bf16 fragment) reaches every
// learner within tau steps.
bool settles(const json& doc) {
  const json& policy = doc["policies"][0];
  const double fragment_s = 2.0 * doc["job"]["params"].get<double>() * 8.0 /
                            policy["fragments"].get<double>() /
                            doc["job"]["intra_site_bandwidth"].get<double>();
  return 2 * fragment_s + 1e-6 <=
         policy["overlap_steps"].get<double>() * doc["job"]["step_time"].get<double>();
}

output::RunResult run(json doc, bool fast_forward) {
  doc["policies"][0]["fast_forward"] = fast_forward;
  const PreparedScenario prepared = testing::prepare_doc(doc);
  return run_scenario(prepared, doc["seed"].get<uint64_t>(), nullptr, nullptr, {});
}

json comparable(const output::RunResult& r) {
  json s = output::summary_json(r);
  for (auto& p : s["policies"]) p.erase("fingerprint");
  s.erase("resolved_scenario");  // names fast_forward itself
  return s;
}

struct Runs {
  output::RunResult stepped, fast;
};

// Runs doc stepping every round and fast-forwarded; checks that everything
// but the fingerprint and the event count is identical.
Runs run_both(const json& doc) {
  Runs r{run(doc, false), run(doc, true)};
  CHECK(comparable(r.fast) == comparable(r.stepped));
  REQUIRE(r.fast.policies.size() == 1);
  CHECK(timeseries_csv(r.fast) == timeseries_csv(r.stepped));
  return r;
}

TEST_CASE("fast-forward: identical to stepping every round on random scenarios") {
  core::Rng rng = core::Rng::for_stream(7, "fast-forward");
  int skipped = 0;
  constexpr int kScenarios = 60;
  for (int i = 0; i < kScenarios; ++i) {
    const json doc = random_decoupled(rng);
    INFO("scenario " << i << ": " << doc.dump());
    const auto [stepped, fast] = run_both(doc);
    CHECK(fast.policies[0].series.size() == stepped.policies[0].series.size());
    CHECK(fast.policies[0].events <= stepped.policies[0].events);
    if (fast.policies[0].events < stepped.policies[0].events) ++skipped;
  }
  // Not vacuous: most of these scenarios have long quiet stretches.
  CHECK(skipped >= kScenarios / 3);
}

// fast_forward: false also turns off the gate's settled learners
// (decoupled_diloco_gate.h), which predict nothing at merges: their stalls,
// sync waits and every other result must be those of predicting every round.
TEST_CASE("settled learners: identical to predicting every round on random scenarios") {
  core::Rng rng = core::Rng::for_stream(11, "settled learners");
  int settling = 0, stalling = 0;
  constexpr int kScenarios = 60;
  for (int i = 0; i < kScenarios; ++i) {
    const json doc = random_settling(rng);
    INFO("scenario " << i << ": " << doc.dump());
    const Runs runs = run_both(doc);
    settling += settles(doc) ? 1 : 0;
    const json summary = output::summary_json(runs.stepped);
    stalling += summary["policies"][0]["badput"]["sync_wait"].get<double>() > 0 ? 1 : 0;
  }
  // Not vacuous: both kinds are drawn often.
  CHECK(settling >= kScenarios / 4);
  CHECK(stalling >= kScenarios / 4);
}

// Found by comparing random runs: after a slowdown a step's remaining time
// was a fraction of a step, and floating-point step times drifted by a
// nanosecond from period to period; a fast-forward shifted by whole periods
// then merged a round a nanosecond before the report it waited for. Step
// times are whole nanoseconds now (step_clock.h), exactly periodic.
TEST_CASE("fast-forward: identical after a slowdown changed the pace mid-step") {
  const json doc = json::parse(R"({"cluster":{"chips":32,"chips_per_host":4,"hosts_per_slice":2},
    "failures":[{"mtbf":259200000,"repair_time":60,"type":"exponential_failures"}],
    "horizon":86400,
    "job":{"intra_site_bandwidth":1e10,"params":3e8,"step_time":3,"tokens_per_step":1e6},
    "name":"ff",
    "policies":[{"fragments":1,"inner_steps":4,"late_fragments":"wait","learners":1,"name":"d",
                 "overlap_steps":2,"quorum":1,"type":"decoupled_diloco","upscale_every":60}],
    "seed":887,
    "stragglers":[{"duration":"10m","mtbe":2592000,"slowdown":0.5,
                   "type":"transient_stragglers"}]})");
  const auto [stepped, fast] = run_both(doc);
  CHECK(fast.policies[0].events < stepped.policies[0].events / 10);
}

TEST_CASE("fast-forward: a quiet run skips almost every round, with the same results") {
  json doc = testing::small_scenario("2d", "", "", "1m", 8, 2);
  doc["policies"] = {{{"name", "d"},
                      {"type", "decoupled_diloco"},
                      {"learners", 4},
                      {"inner_steps", 24},
                      {"fragments", 24},
                      {"overlap_steps", 2}}};
  const auto [stepped, fast] = run_both(doc);
  // 2 days of 1 s steps, one round per step: 172,800 rounds stepped; with
  // nothing but the samples, about one period stepped per sample.
  CHECK(stepped.policies[0].events > 172'800);
  CHECK(fast.policies[0].events < 172'800 / 10);
}

}  // namespace
}  // namespace goodsim::models
