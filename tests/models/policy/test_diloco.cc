// diloco: the plan arithmetic, barriers and streaming against hand-computed
// numbers, scripted failures with exact accounting, and runs through the
// runner (scenario parsing, event log, the multi-datacenter example).
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "models/policy/comm_model.h"
#include "models/policy/diloco.h"
#include "sim/output/event_log.h"
#include "sim/scenario/json_file.h"
#include "tests/support/harness.h"
#include "tests/support/scenarios.h"

namespace goodsim::models::policy {
namespace {

using testing::Harness;

// Chip-time of `chips` chips for `ns` nanoseconds, in ledger units.
ChipNanos cn(uint64_t chips, int64_t ns) {
  return static_cast<ChipNanos>(chip_units(chips)) * ns;
}
constexpr int64_t kSec = core::kNanosPerSecond;
constexpr int64_t kMs = 1'000'000;

DilocoConfig config(uint32_t learners, uint64_t inner_steps, bool drop_failed = false) {
  DilocoConfig c;
  c.learners = learners;
  c.inner_steps = inner_steps;
  c.drop_failed = drop_failed;
  c.elastic.downscale_time = core::Duration::seconds(30);
  c.elastic.upscale_time = core::Duration::seconds(30);
  c.elastic.restart_time = core::Duration::seconds(60);
  c.elastic.min_slices = 1;
  return c;
}

TEST_CASE("sync schedule: staggered fragment offsets", "[models][diloco]") {
  const SyncSchedule plain(500, 1);
  CHECK(plain.step(0) == 500);
  CHECK(plain.step(3) == 2000);
  CHECK(plain.fragment(3) == 0);
  // H = 8, P = 4: offsets 0, 2, 4, 6; fragment 0 first syncs at step 8.
  const SyncSchedule streaming(8, 4);
  const uint64_t steps[] = {2, 4, 6, 8, 10, 12, 14, 16, 18};
  const uint32_t fragments[] = {1, 2, 3, 0, 1, 2, 3, 0, 1};
  for (uint64_t i = 0; i < 9; ++i) {
    CHECK(streaming.step(i) == steps[i]);
    CHECK(streaming.fragment(i) == fragments[i]);
  }
  // H = 10, P = 3: offsets floor(p 10 / 3) = 0, 3, 6.
  const SyncSchedule uneven(10, 3);
  CHECK(uneven.step(0) == 3);
  CHECK(uneven.step(1) == 6);
  CHECK(uneven.step(2) == 10);
  CHECK(uneven.step(3) == 13);
}

TEST_CASE("learner placement: contiguous shares and one per site", "[models][diloco]") {
  const cluster::Layout l(4, 1, {{"a", 3}, {"b", 4}}, /*spare_slices=*/1);  // 6 job slices
  const auto c = place_learners(l, 4, LearnerPlacement::kContiguous);
  REQUIRE(c.size() == 4);
  CHECK(c[0].first == 0);
  CHECK(c[0].end == 2);
  CHECK(c[1].end == 4);
  CHECK(c[2].end == 5);
  CHECK(c[3].end == 6);
  const auto s = place_learners(l, 2, LearnerPlacement::kPerSite);
  REQUIRE(s.size() == 2);
  CHECK(s[0].first == 0);
  CHECK(s[0].end == 3);
  CHECK(s[1].first == 3);
  CHECK(s[1].end == 6);  // the spare slice 6 is not a learner's
}

TEST_CASE("outer all-reduce: intra-site ring, and WAN hops sharing a link", "[models][diloco]") {
  Harness h(4, 4, testing::simple_job(), 0, {{"a", 2}, {"b", 2}});
  h.network().add_link(0, 1, 1e9, core::Duration::millis(10));
  // Three learners in site a: 2 B (2/3) x 8 / 800 Gbit/s = 2e9 x 16/3 / 8e11 s.
  CHECK(*outer_allreduce_time(h.ctx(), {0, 0, 0}, 2e9) ==
        ring_allreduce_time(2e9, 3, 800e9));
  CHECK(*outer_allreduce_time(h.ctx(), {0}, 2e9) == core::Duration::zero());
  // Sites a and b: hops a->b and b->a, 1 GB each, one per direction of the
  // full-duplex 1 Gbit/s link: 8 s, plus 10 ms latency.
  CHECK(*outer_allreduce_time(h.ctx(), {0, 1}, 1e9) == core::Duration::millis(8010));
  // a, a, b: the a->a hop takes 2 (1e9)(2/3) 8 / 8e11 s; a->b and b->a each
  // carry 4/3 GB: 8 x 4/3 s + 10 ms.
  const auto t = *outer_allreduce_time(h.ctx(), {0, 0, 1}, 1e9);
  CHECK(t.seconds_f() == Approx(8 * 4.0 / 3 + 0.01).margin(1e-9));
  // Learners interleaved a, b, a, b: two a->b hops share that direction:
  // 2 (1e9)(3/4) bytes each at 0.5 Gbit/s = 24 s + 10 ms.
  CHECK(*outer_allreduce_time(h.ctx(), {0, 1, 0, 1}, 1e9) == core::Duration::millis(24010));
  CHECK(*model_pull_time(h.ctx(), 0, 0, 1e11) == core::Duration::seconds(1));
  CHECK(*model_pull_time(h.ctx(), 0, 1, 1e9) == core::Duration::millis(8010));
  h.network().set_site_partitioned(1, true);
  CHECK_FALSE(outer_allreduce_time(h.ctx(), {0, 1}, 1e9).has_value());
}

TEST_CASE("no failures, one site: goodput is H step / (H step + outer all-reduce)",
          "[models][diloco]") {
  // 8 slices x 4 chips, 4 learners of 2 slices, H = 10 steps of 1 s. Outer
  // all-reduce of 2 GB among 4 learners at 800 Gbit/s:
  // T = 2 x 2e9 x 8 x (3/4) / 8e11 = 30 ms. 100 cycles of 10.03 s.
  Harness h(8, 4, testing::simple_job());
  Diloco d(config(4, 10));
  h.run(d, 1003);
  const ChipTimeLedger& l = d.ledger();
  CHECK(l.total(Category::kProductive) == cn(32, 1000 * kSec));
  CHECK(l.total(Category::kSyncWait) == cn(32, 3 * kSec));
  CHECK(l.chip_seconds(Category::kProductive) / (32 * 1003.0) == Approx(10 / 10.03).epsilon(1e-14));
  CHECK(d.stats().syncs == 100);
  CHECK(d.stats().outer_steps == 100);
  CHECK(d.stats().comm_wait == core::Duration::seconds(3));
  CHECK(d.stats().barrier_wait == core::Duration::seconds(3));
  CHECK(d.outages().downtime() == core::Duration::zero());
  CHECK(d.progress(h.sim().now()).steps == 1000);
  CHECK(d.progress(h.sim().now()).tokens == Approx(1000 * 1000.0));
}

TEST_CASE("late_fragments skip: the members never hold for the outer all-reduce",
          "[models][diloco]") {
  // The run above (30 ms all-reduce, tau = 0) with skip: 100 barriers in
  // 1005 s, every one later than tau steps, none waited for.
  Harness h(8, 4, testing::simple_job());
  DilocoConfig c = config(4, 10);
  c.transfer.late = LateFragments::kSkip;
  Diloco d(c);
  h.run(d, 1005);
  const ChipTimeLedger& l = d.ledger();
  CHECK(l.total(Category::kProductive) == cn(32, 1005 * kSec));
  CHECK(l.total(Category::kSyncWait) == 0);
  CHECK(d.stats().syncs == 100);
  CHECK(d.stats().late_syncs == 100);
  CHECK(d.stats().comm_wait == core::Duration::zero());
}

TEST_CASE("a token target is reached when a barrier merges enough tokens", "[models][diloco]") {
  // 4 learners x 250 tokens per step: 10,000 tokens per 10.03 s cycle. The
  // target of 25,000 tokens is merged by the third barrier, at 30.09 s.
  scenario::JobSpec job = testing::simple_job(1000);
  job.target_tokens = 25'000;
  Harness h(8, 4, job);
  Diloco d(config(4, 10));
  const core::SimTime end = h.run(d, 1000);
  REQUIRE(d.target_reached_at().has_value());
  CHECK(*d.target_reached_at() == core::SimTime::zero() + core::Duration::millis(30090));
  CHECK(end == *d.target_reached_at());
  CHECK(d.stats().syncs == 3);
  CHECK(d.progress(end).tokens == Approx(30'000));
  CHECK(d.ledger().total(Category::kProductive) == cn(32, 30 * kSec));
}

TEST_CASE("the same figure through the runner, from a scenario", "[models][diloco]") {
  nlohmann::json doc = testing::small_scenario("1003s", "", "", "5m", 8, 1);
  doc["policies"] = {{{"name", "d"}, {"type", "diloco"}, {"learners", 4}, {"inner_steps", 10}}};
  const auto prepared = testing::prepare_doc(doc);
  const output::PolicyResult r = run_policy(prepared, 0, 1, nullptr);
  CHECK(r.goodput == Approx(10 / 10.03).epsilon(1e-12));
  CHECK(r.uptime == 1.0);
  CHECK(r.steps == 1000);
}

TEST_CASE("streaming: P fragments cost the same as one outer step; tau hides them",
          "[models][diloco]") {
  // H = 8, P = 4: a sync every 2 steps of a 0.5 GB fragment among 4 learners:
  // 7.5 ms each, 30 ms per 8 steps, as one 2 GB all-reduce every 8 steps.
  SECTION("no overlap") {
    Harness h(8, 4, testing::simple_job());
    DilocoConfig c = config(4, 8);
    c.fragments = 4;
    Diloco d(c);
    h.run(d, 803);  // 100 cycles of 8.03 s
    CHECK(d.ledger().total(Category::kProductive) == cn(32, 800 * kSec));
    CHECK(d.ledger().total(Category::kSyncWait) == cn(32, 3 * kSec));
    CHECK(d.stats().syncs == 400);
    CHECK(d.stats().outer_steps == 100);
  }
  SECTION("one step of overlap hides 7.5 ms fragments completely") {
    Harness h(8, 4, testing::simple_job());
    DilocoConfig c = config(4, 8);
    c.fragments = 4;
    c.overlap_steps = 1;
    Diloco d(c);
    h.run(d, 800);
    CHECK(d.ledger().total(Category::kProductive) == cn(32, 800 * kSec));
    CHECK(d.ledger().total(Category::kSyncWait) == 0);
    CHECK(d.stats().syncs == 400);
    CHECK(d.stats().comm_wait == core::Duration::zero());
  }
}

TEST_CASE("per-site learners over a slow WAN: only the non-overlapped part is paid",
          "[models][diloco]") {
  // Two sites of 2 slices, one learner each, one 1 Gbit/s link (10 ms).
  // A 1 GB outer all-reduce takes 8.01 s (see above); tau = 5 steps hide
  // 5 s of it, so each cycle is 20 s of compute + 3.01 s of waiting.
  scenario::JobSpec job = testing::simple_job();
  job.gradient_bytes = 1e9;
  Harness h(4, 4, job, 0, {{"a", 2}, {"b", 2}});
  h.network().add_link(0, 1, 1e9, core::Duration::millis(10));
  DilocoConfig c = config(0, 20);
  c.placement = LearnerPlacement::kPerSite;
  c.overlap_steps = 5;
  Diloco d(c);
  h.run(d, 230.1);  // 10 cycles of 23.01 s
  CHECK(d.learner_count() == 2);
  CHECK(d.ledger().total(Category::kProductive) == cn(16, 200 * kSec));
  CHECK(d.ledger().total(Category::kSyncWait) == cn(16, 30100 * kMs));
  CHECK(d.stats().syncs == 10);
  CHECK(d.stats().comm_wait == core::Duration::millis(30100));
}

TEST_CASE("a slow learner makes the others wait at the barrier", "[models][diloco]") {
  // Learner 1 (slice 1) runs at half speed: it reaches each barrier after
  // 20 s, learner 0 after 10 s. Free outer all-reduce (no bytes).
  scenario::JobSpec job = testing::simple_job();
  job.gradient_bytes = 0;
  Harness h(2, 4, job);
  h.cluster().add_slowdown(cluster::SlowdownTarget::slice(1), 2.0, cluster::SlowdownMode::kScale,
                           core::SimTime::zero());
  Diloco d(config(2, 10));
  h.run(d, 100);
  const ChipTimeLedger& l = d.ledger();
  // Each chip is productive at its own speed: learner 0 computes 50 s and
  // waits 50 s at the barriers; learner 1 computes all 100 s.
  CHECK(l.total(Category::kProductive) == cn(4, 150 * kSec));
  CHECK(l.total(Category::kSyncWait) == cn(4, 50 * kSec));  // learner 0
  CHECK(l.total(Category::kStragglerWait) == 0);
  CHECK(d.stats().syncs == 5);
}

// Two learners of one 4-chip slice each, H = 10 steps of 1 s. The outer
// all-reduce of 100 GB between the two takes 2 x 1e11 x 8 x 1/2 / 8e11 = 1 s,
// so a cycle is 11 s; pulling the 100 GB model takes 1e11 x 8 / 8e11 = 1 s.
// Slice 1 fails at 25.5 s (3.5 s into the third cycle) and is back at 100 s;
// the restart takes 60 s.
scenario::JobSpec big_model_job() {
  scenario::JobSpec job = testing::simple_job();
  job.gradient_bytes = 1e11;
  return job;
}

TEST_CASE("a down learner holds the barrier for everyone (drop_failed false)",
          "[models][diloco]") {
  Harness h(2, 4, big_model_job());
  h.outage(25.5, 74.5, 1);
  Diloco d(config(2, 10, /*drop_failed=*/false));
  h.run(d, 205);
  const ChipTimeLedger& l = d.ledger();
  // Learner 1 loses 3.5 s of inner steps (the half step in flight and 3 steps
  // since the barrier at 22 s) on 4 chips.
  CHECK(l.total(Category::kLostWork) == cn(4, 3500 * kMs));
  CHECK(l.total(Category::kDown) == cn(4, 74500 * kMs));
  // Restart [100, 160) then the pull [160, 161).
  CHECK(l.total(Category::kReconfigure) == cn(4, 61 * kSec));
  // Learner 0 reaches step 30 at 32 s and waits until learner 1 gets there at
  // 171 s; the outer step ends at 172 s; three more cycles to 205 s.
  // Productive: learner 0 10 + 10 + 10 + 30 s, learner 1 10 + 10 + 10 + 30 s.
  CHECK(l.total(Category::kProductive) == cn(4, 120 * kSec));
  // Sync: learner 0 1 + 1 + 140 + 3 s, learner 1 1 + 1 + 1 + 3 s.
  CHECK(l.total(Category::kSyncWait) == cn(4, 151 * kSec));
  CHECK(l.total(Category::kIdle) == 0);
  // Nothing trains from 32 s until learner 1 runs again at 161 s.
  CHECK(d.outages().downtime() == core::Duration::seconds(129));
  CHECK(d.outages().outages() == 1);
  CHECK(d.stats().syncs == 6);
  CHECK(d.stats().rollbacks == 1);
  CHECK(d.stats().pulls == 1);
  CHECK(d.stats().drops == 0);
  CHECK(d.learner_step(0, h.sim().now()) == 60);
  CHECK(d.learner_step(1, h.sim().now()) == 60);
  CHECK(d.progress(h.sim().now()).tokens == Approx(2 * 60 * 500.0));
}

TEST_CASE("drop_failed: the others go on, the learner rejoins at a barrier",
          "[models][diloco]") {
  Harness h(2, 4, big_model_job());
  h.outage(25.5, 74.5, 1);
  Diloco d(config(2, 10, /*drop_failed=*/true));
  h.run(d, 196);
  const ChipTimeLedger& l = d.ledger();
  CHECK(l.total(Category::kLostWork) == cn(4, 3500 * kMs));
  CHECK(l.total(Category::kDown) == cn(4, 74500 * kMs));
  // Learner 0 trains alone from 22 s (free outer steps among one learner):
  // step n at n + 2 s. Learner 1 is back at 160 s, waits for the barrier of
  // step 160 (at 162 s), pulls [162, 163) and trains from step 160; learner 0
  // waits for it at step 170 from 172 to 173 s; outer step [173, 174); then
  // 11 s cycles ending at 185 and 196 s.
  CHECK(l.total(Category::kReconfigure) == cn(4, 61 * kSec));
  // Productive: learner 0 10 + 10 + 150 + 10 + 10, learner 1 10 + 10 + 10 + 10 + 10.
  CHECK(l.total(Category::kProductive) == cn(4, 240 * kSec));
  // Sync: learner 0 1 + 1 + 2 + 1 + 1; learner 1 1 + 1 + 2 (waiting) + 1 + 1 + 1.
  CHECK(l.total(Category::kSyncWait) == cn(4, 13 * kSec));
  CHECK(d.outages().downtime() == core::Duration::zero());
  CHECK(d.stats().syncs == 19);
  CHECK(d.stats().drops == 1);
  CHECK(d.stats().pulls == 1);
  CHECK(d.learner_step(0, h.sim().now()) == 190);
  CHECK(d.learner_step(1, h.sim().now()) == 190);
  // Learner 1 computed 20 + 30 of those steps itself.
  CHECK(d.progress(h.sim().now()).tokens == Approx((190 + 50) * 500.0));
}

TEST_CASE("drop_failed: when every learner is down nothing trains", "[models][diloco]") {
  Harness h(2, 4, big_model_job());
  h.outage(5, 100, 0);  // learner 0 down [5, 105)
  h.outage(8, 20, 1);   // learner 1 down [8, 28): nobody trains [8, 88)
  Diloco d(config(2, 10, /*drop_failed=*/true));
  h.run(d, 300);
  // Learner 0 is dropped at 5 s. Learner 1 is the last member: it is not
  // dropped, restarts [28, 88) and, as no learner holds the model, reloads
  // the step-0 model locally at no cost: training resumes at 88 s.
  CHECK(d.outages().downtime() == core::Duration::seconds(80));
  CHECK(d.stats().drops == 1);
  CHECK(d.stats().rollbacks == 2);
  CHECK(d.ledger().total(Category::kReconfigure) >= cn(4, 120 * kSec));
}

TEST_CASE("diloco: same seed, same run; accounting holds under random failures",
          "[models][diloco]") {
  // 12 slices of 8 chips over 4 sites in a line a - b - c - d; the last
  // slice is a spare. Contiguous learners of 3, 3, 3, 2 slices match sites.
  nlohmann::json doc = testing::small_scenario("5d", "20d", "1h", "5m", 12, 2);
  doc["cluster"]["spare_slices"] = 1;
  doc["cluster"]["sites"] = {{{"name", "a"}}, {{"name", "b"}}, {{"name", "c"}}, {{"name", "d"}}};
  doc["cluster"]["links"] = {
      {{"from", "a"}, {"to", "b"}, {"bandwidth", "5Gbps"}, {"latency", "20ms"}},
      {{"from", "b"}, {"to", "c"}, {"bandwidth", "2Gbps"}, {"latency", "30ms"}},
      {{"from", "c"}, {"to", "d"}, {"bandwidth", "5Gbps"}, {"latency", "20ms"}}};
  doc["policies"] = {
      {{"name", "sync"}, {"type", "diloco"}, {"learners", 4}, {"inner_steps", 50}},
      {{"name", "drop"}, {"type", "diloco"}, {"learners", 4}, {"inner_steps", 50},
       {"drop_failed", true}, {"min_slices", 2}},
      {{"name", "site"}, {"type", "diloco"}, {"placement", "per_site"}, {"inner_steps", 30},
       {"fragments", 3}, {"overlap_steps", 2}, {"drop_failed", true}}};
  const auto prepared = testing::prepare_doc(doc);
  const output::RunResult a = run_scenario(prepared, 7, nullptr);
  const output::RunResult b = run_scenario(prepared, 7, nullptr);
  for (size_t i = 0; i < a.policies.size(); ++i) {
    const output::PolicyResult& p = a.policies[i];
    INFO(p.name);
    CHECK(p.failures > 5);
    CHECK(p.fingerprint == b.policies[i].fingerprint);
    CHECK(p.goodput == b.policies[i].goodput);
    CHECK(p.goodput > 0.3);
    CHECK(p.uptime <= 1.0);
    double sum = p.goodput;
    for (const auto& [name, v] : p.badput) sum += v / (96.0 * 5 * 86400);
    CHECK(sum == Approx(1.0).epsilon(1e-9));
  }
  // Dropping failed learners keeps training going.
  CHECK(a.policies[1].uptime >= a.policies[0].uptime);
}

TEST_CASE("barriers are written to the event log", "[models][diloco]") {
  nlohmann::json doc = testing::small_scenario("100s", "", "", "5m", 4, 1);
  doc["policies"] = {{{"name", "d"}, {"type", "diloco"}, {"inner_steps", 10}}};
  const auto prepared = testing::prepare_doc(doc);
  const auto dir = std::filesystem::temp_directory_path() / "goodsim_test_diloco_log";
  std::filesystem::create_directories(dir);
  const auto path = dir / "events.jsonl";
  {
    output::EventLog log(path);
    run_policy(prepared, 0, 1, &log);
    log.commit();
  }
  std::ifstream in(path);
  int barriers = 0;
  for (std::string line; std::getline(in, line);) {
    const auto j = nlohmann::json::parse(line);
    if (j["event"] == "barrier") ++barriers;
  }
  CHECK(barriers == 9);  // 10 steps + a 20 ms outer step each: 9 done by 100 s
  std::filesystem::remove_all(dir);
}

TEST_CASE("the multi-datacenter example: DP across sites is slow, DiLoCo cheap",
          "[models][diloco]") {
  const std::string file =
      (std::filesystem::path(GOODSIM_SOURCE_DIR) / "scenarios" / "multi-datacenter.json").string();
  const auto prepared = testing::prepare_doc(scenario::load_json_file(file), file);
  const output::RunResult run = run_scenario(prepared, prepared.scenario.seed, nullptr);
  auto find = [&](const std::string& name) {
    for (const auto& p : run.policies) {
      if (p.name == name) return p;
    }
    FAIL("no policy " << name);
    return run.policies[0];
  };
  const auto dp = find("dp-across-sites");
  const auto diloco = find("diloco-h500");
  const auto streaming = find("streaming-diloco");
  CHECK(dp.goodput < 0.2);
  CHECK(diloco.goodput > 0.9);
  CHECK(streaming.goodput > diloco.goodput);
}

TEST_CASE("diloco parameters are documented and defaults parse", "[models][diloco]") {
  scenario::ObjectReader r = scenario::ObjectReader::describe("policies.*");
  const DilocoConfig c = DilocoConfig::from_json(r, ParseContext{});
  CHECK(c.inner_steps == 500);
  CHECK(c.fragments == 1);
  CHECK_FALSE(c.drop_failed);
  std::vector<std::string> keys;
  for (const auto& doc : r.docs()) keys.push_back(doc.key);
  for (const char* k : {"learners", "placement", "inner_steps", "fragments", "overlap_steps",
                        "drop_failed", "min_slices", "restart_time"}) {
    CHECK(std::find_if(keys.begin(), keys.end(), [&](const std::string& key) {
            return key.find(k) != std::string::npos;
          }) != keys.end());
  }
}

}  // namespace
}  // namespace goodsim::models::policy
