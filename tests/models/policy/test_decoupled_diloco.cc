// decoupled_diloco: schedule arithmetic, rounds without failures, quorum
// semantics (K = M like synchronous DiLoCo, K = 1 without global downtime),
// staleness bounds, heterogeneous speeds and the grace window, scripted
// failures and scavenging windows with exact hand-computed accounting, and
// the validation of configs.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <csignal>
#include <functional>
#include <filesystem>
#include <fstream>
#include <string>
#include <tuple>
#include <vector>

#include "models/policy/decoupled_diloco.h"
#include "models/policy/diloco.h"
#include "sim/core/rng.h"
#include "sim/output/event_log.h"
#include "sim/scenario/error.h"
#include "tests/support/decoupled_config.h"
#include "tests/support/harness.h"
#include "tests/support/scenarios.h"

namespace goodsim::models::policy {
namespace {

using testing::Harness;

ChipNanos cn(uint64_t chips, int64_t ns) { return static_cast<ChipNanos>(chip_units(chips)) * ns; }
constexpr int64_t kSec = core::kNanosPerSecond;
constexpr int64_t kMs = 1'000'000;

// 30 s elastic pauses, a 30 s rejoin overhead and 100 GB of state: a pull
// inside the site takes 1e11 x 8 / 8e11 = 1 s, so a rejoin costs 31 s.
const auto config = testing::decoupled_config;

// Collects every merged round.
struct Rounds {
  std::vector<RoundRecord> all;
  void attach(DecoupledDiloco& d) {
    d.set_round_observer([this](const RoundRecord& r) { all.push_back(r); });
  }
};

// Starts `d` through the harness with an observer attached right after start.
core::SimTime run_observed(Harness& h, DecoupledDiloco& d, Rounds& rounds, double horizon_s) {
  h.cluster().add_observer(&d);
  d.start(h.ctx());
  rounds.attach(d);
  h.sim().run_until(core::SimTime::zero() + core::Duration::from_seconds(horizon_s));
  d.finish(h.sim().now());
  d.ledger().check_invariant();
  return h.sim().now();
}

TEST_CASE("schedule arithmetic: the report steps of a fragment", "[models][decoupled]") {
  // H = 24, t_p = 5: reports at 5, 29, 53, ...
  CHECK(latest_report(4, 5, FloorDivider(24)) == 0);
  CHECK(latest_report(5, 5, FloorDivider(24)) == 5);
  CHECK(latest_report(52, 5, FloorDivider(24)) == 29);
  CHECK(next_report(0, 5, FloorDivider(24)) == 5);
  CHECK(next_report(5, 5, FloorDivider(24)) == 29);
  CHECK(next_report(-100, 5, FloorDivider(24)) == 5);
  // t_p = 0 never reports at step 0.
  CHECK(latest_report(23, 0, FloorDivider(24)) == 0);
  CHECK(latest_report(24, 0, FloorDivider(24)) == 24);
  CHECK(next_report(0, 0, FloorDivider(24)) == 24);
  CHECK(next_report(-1, 0, FloorDivider(24)) == 24);
  DecoupledDilocoConfig c = config(4, 24, 8, 2, 1);
  CHECK(c.offset(0) == 0);
  CHECK(c.offset(1) == 3);
  CHECK(c.offset(7) == 21);
}

TEST_CASE("no failures: all chips productive, every round merges every learner",
          "[models][decoupled]") {
  // 4 learners of one 4-chip slice, H = P = 4, tau = 2, 1 s steps. Every step
  // reports one fragment, so 1000 steps make 1000 rounds.
  Harness h(4, 4, testing::simple_job());
  DecoupledDiloco d(config(4, 4, 4, 2, 1));
  Rounds rounds;
  run_observed(h, d, rounds, 1000.5);
  const ChipTimeLedger& l = d.ledger();
  CHECK(l.total(Category::kProductive) == cn(16, 1000500 * kMs));
  CHECK(d.outages().downtime() == core::Duration::zero());
  CHECK(d.progress(h.sim().now()).steps == 1000);
  CHECK(d.progress(h.sim().now()).tokens == Approx(1000 * 1000.0));
  const SyncerStats& s = d.syncer_stats();
  REQUIRE(s.rounds == 1000);
  for (const RoundRecord& r : rounds.all) {
    CHECK(r.quorum == 4);
    CHECK(r.contributors == 4);
  }
  // A merged fragment applies tau steps after each report, so a contribution
  // covers H - tau = 2 steps; the first of fragment p covers t_p steps (H for
  // p = 0). Per learner 502 + 499 + 500 + 501 steps; 250 tokens per step.
  CHECK(s.staleness_max == 4);
  CHECK(s.staleness_sum == 4 * 2002);
  CHECK(s.tokens_merged == Approx(4 * 2002 * 250.0));
  CHECK(s.late == 0);
  CHECK(s.grace_wait == core::Duration::zero());
  CHECK(s.clock_jumps == 0);
}

TEST_CASE("the same run through the runner: goodput 1, no badput", "[models][decoupled]") {
  nlohmann::json doc = testing::small_scenario("1000.5s", "", "", "5m", 8, 1);
  doc["policies"] = {{{"name", "dd"}, {"type", "decoupled_diloco"}, {"learners", 4},
                      {"inner_steps", 8}, {"fragments", 4}}};
  const auto prepared = testing::prepare_doc(doc);
  const output::PolicyResult r = run_policy(prepared, 0, 1, nullptr);
  CHECK(r.goodput == 1.0);
  CHECK(r.uptime == 1.0);
  CHECK(r.steps == 1000);
  for (const auto& [name, value] : r.badput) CHECK(value == 0.0);
  // Deterministic: the same seed gives the same fingerprint.
  CHECK(run_policy(prepared, 0, 1, nullptr).fingerprint == r.fingerprint);
  // With a loss model the learners' steps and the merges drive it: the loss
  // falls as training goes on.
  nlohmann::json with_loss = doc;
  with_loss["loss"] = {{"type", "scaling_law"}};
  const output::PolicyResult l = run_policy(testing::prepare_doc(with_loss), 0, 1, nullptr);
  REQUIRE(l.final_loss.has_value());
  REQUIRE(l.series.size() > 2);
  REQUIRE(l.series[1].loss.has_value());
  CHECK(*l.final_loss < *l.series[1].loss);
  // A token target of 500 global batches is reached after 500 steps.
  doc["job"]["target_tokens"] = 500 * 1e6;
  const output::PolicyResult t = run_policy(testing::prepare_doc(doc), 0, 1, nullptr);
  REQUIRE(t.time_to_target_s.has_value());
  CHECK(*t.time_to_target_s == 500.0);
  CHECK(t.steps == 500);
}

TEST_CASE("K = M without grace syncs like synchronous DiLoCo", "[models][decoupled]") {
  SECTION("same rounds as diloco's fragment syncs") {
    Harness h1(4, 4, testing::simple_job());
    DecoupledDiloco d(config(4, 4, 4, 2, 4));
    Rounds rounds;
    run_observed(h1, d, rounds, 1000.5);
    DilocoConfig dc;
    dc.learners = 4;
    dc.inner_steps = 4;
    dc.fragments = 4;
    dc.overlap_steps = 2;
    dc.elastic = config(4, 4, 4, 2, 4).elastic;
    Harness h2(4, 4, testing::simple_job());
    Diloco sync(dc);
    h2.run(sync, 1000.5);
    CHECK(d.syncer_stats().rounds == sync.stats().syncs);
    CHECK(d.ledger().total(Category::kProductive) == sync.ledger().total(Category::kProductive));
    for (const RoundRecord& r : rounds.all) CHECK(r.quorum == 4);
  }
  SECTION("skip: a slow learner sets the pace of the rounds, all merge every round") {
    // Learner 3 steps every 1.25 s: 800 steps in 1000.5 s, so 800 rounds.
    Harness h(4, 4, testing::simple_job());
    h.cluster().add_slowdown(cluster::SlowdownTarget::slice(3), 1.25,
                             cluster::SlowdownMode::kScale, core::SimTime::zero());
    DecoupledDilocoConfig c = config(4, 4, 4, 2, 4);
    c.transfer.late = LateFragments::kSkip;
    DecoupledDiloco d(c);
    Rounds rounds;
    run_observed(h, d, rounds, 1000.5);
    CHECK(d.syncer_stats().rounds == 800);
    for (const RoundRecord& r : rounds.all) {
      CHECK(r.quorum == 4);
      CHECK(r.contributors == 4);
    }
    // Learners never wait: the fast three ran 1000 steps; their merged
    // fragments reach them late (after the slow learner reported).
    CHECK(d.learner(0).own_now() == 1000);
    CHECK(d.learner(3).own_now() == 800);
    CHECK(d.syncer_stats().late > 0);
    // Learner 3's chips compute at their own speed: productive all along,
    // nobody waits for a slower slice inside a learner.
    CHECK(d.ledger().chip_seconds(Category::kProductive) == Approx(16 * 1000.5).epsilon(1e-9));
    CHECK(d.ledger().total(Category::kStragglerWait) == 0);
  }
}

TEST_CASE("a pace change without a change of mode moves the rounds", "[models][decoupled]") {
  // As above, but learner 3 slows down only at 200 s (its group keeps
  // running: nothing but its step time changes). It completes 200 steps, then
  // (1000.5 - 200) / 1.25 = 640.4: 840 steps, so 840 rounds.
  Harness h(4, 4, testing::simple_job());
  const core::HandlerId slow = h.sim().add_handler("test.slow", [&h](const core::Event&) {
    h.cluster().add_slowdown(cluster::SlowdownTarget::slice(3), 1.25,
                             cluster::SlowdownMode::kScale, h.sim().now());
  });
  h.sim().schedule_at(core::SimTime::zero() + core::Duration::seconds(200), core::kBandFailure,
                      slow);
  DecoupledDilocoConfig c = config(4, 4, 4, 2, 4);
  c.transfer.late = LateFragments::kSkip;
  DecoupledDiloco d(c);
  Rounds rounds;
  run_observed(h, d, rounds, 1000.5);
  CHECK(d.learner(3).own_now() == 840);
  CHECK(d.syncer_stats().rounds == 840);
  for (const RoundRecord& r : rounds.all) CHECK(r.contributors == 4);
}

TEST_CASE("K = 1: no global downtime while any learner lives", "[models][decoupled]") {
  SECTION("learners 0-2 fail in overlapping windows, learner 3 never") {
    Harness h(4, 4, testing::simple_job());
    h.outage(100.5, 300, 0);
    h.outage(200.25, 300, 1);
    h.outage(250, 100, 2);
    h.outage(700, 50, 2);
    DecoupledDiloco d(config(4, 4, 4, 2, 1));
    h.run(d, 2000);
    CHECK(d.outages().downtime() == core::Duration::zero());
    CHECK(d.outages().outages() == 0);
    CHECK(d.syncer_stats().rejoins == 4);
    // Rounds went on: learner 3 alone reported every step.
    CHECK(d.syncer_stats().rounds == 2000);
  }
  SECTION("when every learner is down, downtime lasts until the first rejoin ends") {
    // Learners 0-2 down [450, 700), learner 3 down [500, 600). Learner 3 has
    // no live peer at 600: it pulls from the syncer (1 s) and restarts (30 s),
    // training again at 631 s.
    Harness h(4, 4, testing::simple_job());
    for (uint32_t k = 0; k < 3; ++k) h.outage(450, 250, k);
    h.outage(500, 100, 3);
    DecoupledDiloco d(config(4, 4, 4, 2, 1));
    h.run(d, 1000);
    CHECK(d.outages().downtime() == core::Duration::seconds(131));
    CHECK(d.outages().outages() == 1);
  }
}

TEST_CASE("one scripted failure: exact accounting", "[models][decoupled]") {
  // 4 learners of one 4-chip slice; H = 4, P = 2 (reports at even steps),
  // tau = 1. Slice 1 fails at 101.5 s for 200 s.
  Harness h(4, 4, testing::simple_job());
  h.outage(101.5, 200, 1);
  DecoupledDiloco d(config(4, 4, 2, 1, 1));
  h.run(d, 1000);
  const ChipTimeLedger& l = d.ledger();
  // Learner 1 had completed 101 steps; its last report was at step 100. The
  // step since (1 s) and the half step in flight (0.5 s) are lost.
  CHECK(l.total(Category::kLostWork) == cn(4, 1500 * kMs));
  CHECK(l.total(Category::kDown) == cn(4, 200 * kSec));
  // Back at 301.5 s: 30 s restart + 1 s state pull from learner 0.
  CHECK(l.total(Category::kReconfigure) == cn(4, 31 * kSec));
  // Learner 1: 100 s kept before, then trains from 332.5 s to 1000 s.
  CHECK(l.total(Category::kProductive) == cn(4, 3000 * kSec + 100 * kSec + 667500 * kMs));
  CHECK(l.total(Category::kIdle) == 0);
  CHECK(l.total(Category::kSyncWait) == 0);
  CHECK(d.outages().downtime() == core::Duration::zero());
  // Kept steps: 3 x 1000 + 100 + 667, 250 tokens each.
  CHECK(d.progress(h.sim().now()).tokens == Approx(3767 * 250.0));
  const SyncerStats& s = d.syncer_stats();
  CHECK(s.rejoins == 1);
  // It took learner 0's schedule clock: step 332 at 332.5 s.
  CHECK(d.learner(1).own_now() == 101 + 667);
  CHECK(d.learner(1).sched_now() == 999);
  // Its state came from learner 0, which applied fragment 1 at step 331
  // (report 330 + tau) and fragment 0 at step 329: ages 1 and 3.
  CHECK(s.rejoin_staleness_max == 3);
  CHECK(s.staleness_max <= 4 + 3);
}

TEST_CASE("spare slices are idle, and down while their chips are", "[models][decoupled]") {
  // 4 learners of one 4-chip slice and one spare slice (chips 16-19). Chip 17
  // fails at 100 s for 200 s; chip 18 at 150 s for 100 s, in a slice already
  // down (no slice flips: only its down chips change).
  Harness h(5, 4, testing::simple_job(), 1);
  h.outage(100, 200, 17, cluster::Domain::kChip);
  h.outage(150, 100, 18, cluster::Domain::kChip);
  DecoupledDiloco d(config(4, 4, 2, 1, 1));
  h.run(d, 1000);
  const ChipTimeLedger& l = d.ledger();
  CHECK(l.total(Category::kDown) == cn(1, 300 * kSec));
  CHECK(l.total(Category::kIdle) == cn(4, 1000 * kSec) - cn(1, 300 * kSec));
  CHECK(l.total(Category::kProductive) == cn(16, 1000 * kSec));
}

TEST_CASE("the chips' split, kept learner by learner, equals a recount after every change",
          "[models][decoupled]") {
  // 4 learners of 2 slices (at least 2 running: one slice down takes a
  // learner down and it rejoins) and a spare slice. Outages of chips, slices
  // (spare included) and the whole site; a slower slice; learner 3 parked
  // outside [600, 2400) s. A learner's part of the split that missed a change
  // would differ from the recount until its next one.
  Harness h(9, 4, testing::simple_job(), 1);
  h.cluster().add_slowdown(cluster::SlowdownTarget::slice(1), 1.3, cluster::SlowdownMode::kScale,
                           core::SimTime::zero());
  core::Rng rng = core::Rng::for_stream(5, "decoupled-split");
  for (int i = 0; i < 60; ++i) {
    const double at = 3000.0 * rng.uniform01();
    const double span = 20 + 300 * rng.uniform01();
    if (i % 3 == 0) {
      h.outage(at, span, static_cast<uint32_t>(rng.below(36)), cluster::Domain::kChip);
    } else {
      h.outage(at, span, static_cast<uint32_t>(rng.below(9)));
    }
  }
  h.outage(1500.25, 100, 0, cluster::Domain::kSite);
  h.outage(100, 300, 2);                        // slice 2 (chips 8-11) down, then
  h.outage(200, 100, 9, cluster::Domain::kChip);  // a chip of it: only the split moves
  DecoupledDilocoConfig c = config(4, 8, 4, 2, 1);
  c.elastic.min_slices = 2;
  c.schedule = {{3, core::Duration::seconds(600), core::Duration::seconds(2400)}};
  DecoupledDiloco d(c);
  h.cluster().add_observer(&d);
  d.start(h.ctx());
  int checked = 0, differing = 0;
  for (double t = 0.25; t < 3200; t += 0.5, ++checked) {
    h.sim().run_until(core::SimTime::zero() + core::Duration::from_seconds(t));
    if (d.ledger().split() != d.recount_split()) ++differing;
  }
  d.finish(h.sim().now());
  d.ledger().check_invariant();
  CHECK(checked == 6400);
  CHECK(differing == 0);
  CHECK(d.syncer_stats().rejoins >= 10);  // learners went down and came back
  CHECK(d.ledger().total(Category::kDown) > 0);
}

// What run_stats() reports of a run.
struct RunStats {
  SyncerStats syncer;
  double tokens = 0;  // trained
  core::Duration downtime;
};

// Runs `d` through `h` to `horizon_s`: stepped rounds with a round observer
// (the rounds count their tokens), or as a run without one, which may
// fast-forward.
RunStats run_stats(Harness& h, DecoupledDiloco& d, double horizon_s, bool observed) {
  Rounds rounds;
  const core::SimTime end = observed ? run_observed(h, d, rounds, horizon_s)
                                     : h.run(d, horizon_s);
  return {d.syncer_stats(), d.progress(end).tokens, d.outages().downtime()};
}

TEST_CASE("staleness stays within what the schedule allows", "[models][decoupled]") {
  // Each case runs as a plain run (which may fast-forward) for the staleness
  // bounds, and observed for the bound on the tokens merged.
  const auto both = [](const std::function<void(Harness&)>& setup, const DecoupledDilocoConfig& c,
                       double horizon_s) {
    std::array<RunStats, 2> out;
    for (const bool observed : {false, true}) {
      Harness h(c.learners, 4, testing::simple_job());
      setup(h);
      DecoupledDiloco d(c);
      out[observed ? 1 : 0] = run_stats(h, d, horizon_s, observed);
    }
    return out;
  };
  SECTION("heterogeneous speeds, K = 1: every sync point gets a newer fragment") {
    const auto [plain, observed] = both(
        [](Harness& h) {
          h.cluster().add_slowdown(cluster::SlowdownTarget::slice(2), 1.18,
                                   cluster::SlowdownMode::kScale, core::SimTime::zero());
          h.cluster().add_slowdown(cluster::SlowdownTarget::slice(3), 1.5,
                                   cluster::SlowdownMode::kScale, core::SimTime::zero());
        },
        config(4, 8, 4, 2, 1), 5000);
    CHECK(plain.syncer.staleness_max <= 8);
    // Slower learners follow the syncer clock: they report every fragment
    // too, on time or riding along into the next round.
    CHECK(plain.syncer.mean_contributors() == Approx(4).epsilon(0.01));
    CHECK(observed.syncer.tokens_merged > 0);
    CHECK(observed.syncer.tokens_merged <= 4 * observed.tokens);
  }
  SECTION("random failures, K = 1: within 2H, the state pulled on a rejoin within H") {
    // 8 learners of one slice; 300 random slice outages over a day.
    const uint64_t h_steps = 24;
    const auto [plain, observed] = both(
        [](Harness& h) {
          core::Rng rng = core::Rng::for_stream(7, "decoupled-outages");
          for (int i = 0; i < 300; ++i) {
            const double at = 86400.0 * rng.uniform01();
            h.outage(at, 30 + 600 * rng.uniform01(), static_cast<uint32_t>(rng.below(8)));
          }
        },
        config(8, h_steps, 24, 2, 1), 86400);
    const SyncerStats& s = plain.syncer;
    INFO("max staleness " << s.staleness_max << ", rejoin age " << s.rejoin_staleness_max);
    CHECK(s.rejoins > 100);
    // A learner applies a newer fragment at each sync point unless the
    // learner driving a round paused; then the next one, at most about a step
    // behind the syncer clock, reports the round within H more steps.
    CHECK(s.rejoin_staleness_max <= h_steps);
    CHECK(s.staleness_max <= 2 * h_steps);
    CHECK(plain.downtime == core::Duration::zero());
    // Each token is merged at most once per fragment.
    CHECK(observed.syncer.tokens_merged > 0);
    CHECK(observed.syncer.tokens_merged <= 24 * observed.tokens);
  }
}

TEST_CASE("heterogeneous speeds: the grace window waits for slower learners",
          "[models][decoupled]") {
  // Learners 2 and 3 are 10% slower. Without grace the fast pair forms
  // every quorum; with grace the syncer waits up to gamma x tau x step.
  auto run = [](bool grace) {
    Harness h(4, 4, testing::simple_job());
    for (cluster::SliceId s : {2u, 3u}) {
      h.cluster().add_slowdown(cluster::SlowdownTarget::slice(s), 1.1,
                               cluster::SlowdownMode::kScale, core::SimTime::zero());
    }
    DecoupledDilocoConfig c = config(4, 24, 24, 2, 1);
    c.grace = grace;
    DecoupledDiloco d(c);
    h.run(d, 20000);
    return d.syncer_stats();
  };
  const SyncerStats plain = run(false), graced = run(true);
  CHECK(plain.grace_wait == core::Duration::zero());
  CHECK(graced.grace_wait > core::Duration::zero());
  CHECK(graced.mean_quorum() > plain.mean_quorum() + 0.2);
  // The window never exceeds gamma x tau x step = 1.1 s.
  CHECK(graced.grace_wait.seconds_f() <= 1.1 * static_cast<double>(graced.grace_rounds));
}

TEST_CASE("scavenging: a learner present only in its window", "[models][decoupled]") {
  // Learner 3 joins at 100 s (30 s restart + 1 s pull from learner 0) and
  // leaves at 900.5 s, losing the half step in flight.
  Harness h(4, 4, testing::simple_job());
  DecoupledDilocoConfig c = config(4, 4, 4, 2, 1);
  c.schedule = {{3, core::Duration::seconds(100), core::Duration::from_seconds(900.5)}};
  DecoupledDiloco d(c);
  h.run(d, 1000);
  const ChipTimeLedger& l = d.ledger();
  CHECK(l.total(Category::kIdle) == cn(4, 199500 * kMs));
  CHECK(l.total(Category::kReconfigure) == cn(4, 31 * kSec));
  CHECK(l.total(Category::kLostWork) == cn(4, 500 * kMs));
  CHECK(l.total(Category::kProductive) == cn(4, 3000 * kSec + 769 * kSec));
  CHECK(d.outages().downtime() == core::Duration::zero());
  CHECK(d.syncer_stats().rejoins == 1);
  CHECK(d.learner(3).state() == DecoupledDilocoLearner::State::kParked);
}

TEST_CASE("round records reach the observer and the event log", "[models][decoupled]") {
  nlohmann::json doc = testing::small_scenario("200.5s", "", "", "5m", 4, 1);
  doc["policies"] = {{{"name", "dd"}, {"type", "decoupled_diloco"}, {"inner_steps", 8},
                      {"fragments", 4}}};
  const auto prepared = testing::prepare_doc(doc);
  const auto dir = std::filesystem::temp_directory_path() / "goodsim_test_decoupled_log";
  std::filesystem::create_directories(dir);
  const auto path = dir / "events.jsonl";
  {
    output::EventLog log(path);
    run_policy(prepared, 0, 1, &log);
    log.commit();
  }
  std::ifstream in(path);
  int rounds = 0, summaries = 0;
  for (std::string line; std::getline(in, line);) {
    const auto j = nlohmann::json::parse(line);
    if (j["event"] == "sync_round") {
      ++rounds;
      CHECK(j["contributors"] == 4);
    }
    if (j["event"] == "syncer_summary") {
      ++summaries;
      CHECK(j["rounds"] == 100);
    }
  }
  // Reports every 2 steps (offsets 0, 2, 4, 6 of H = 8): 100 rounds in 200 s.
  CHECK(rounds == 100);
  CHECK(summaries == 1);
  std::filesystem::remove_all(dir);

  Harness h(4, 4, testing::simple_job());
  DecoupledDiloco d(config(4, 8, 4, 2, 1));
  Rounds observed;
  run_observed(h, d, observed, 200.5);
  double tokens = 0;
  for (const RoundRecord& r : observed.all) tokens += r.tokens;
  CHECK(observed.all.size() == d.syncer_stats().rounds);
  CHECK(tokens == Approx(d.syncer_stats().tokens_merged));
}

TEST_CASE("nonsense configs are rejected with clear messages", "[models][decoupled]") {
  auto error_of = [](const nlohmann::json& policy) -> std::string {
    nlohmann::json doc = testing::small_scenario("1d", "", "", "5m", 8, 1);
    // array(): built by clang, a braced {policy} is the object itself, not a list.
    doc["policies"] = nlohmann::json::array({policy});
    try {
      testing::prepare_doc(doc);
    } catch (const scenario::ScenarioError& e) {
      return e.what();
    }
    return "accepted";
  };
  const nlohmann::json base = {{"type", "decoupled_diloco"}};
  auto with = [&base](const char* key, const nlohmann::json& v) {
    nlohmann::json p = base;
    p[key] = v;
    return p;
  };
  CHECK_THAT(error_of(with("quorum", 5)), Catch::Contains("quorum K (5) exceeds the 4 learners"));
  CHECK_THAT(error_of(with("learners", 9)),
             Catch::Contains("more learners (9) than member slices (8)"));
  CHECK_THAT(error_of(with("inner_steps", 0)), Catch::Contains("inner_steps"));
  CHECK_THAT(error_of(with("fragments", 30)),
             Catch::Contains("fragments P (30) must not exceed inner_steps H (24)"));
  CHECK_THAT(error_of(with("overlap_steps", 25)), Catch::Contains("overlap_steps tau (25)"));
  CHECK_THAT(error_of(with("gamma", 1.0)), Catch::Contains("gamma must be below 1"));
  CHECK_THAT(error_of(with("min_slices", 3)),
             Catch::Contains("exceeds the smallest learner's 2 slices"));
  CHECK_THAT(error_of(with("schedule", nlohmann::json::array({{{"learner", 4}, {"join", "1h"},
                                                                 {"leave", "2h"}}}))),
             Catch::Contains("learner 4 does not exist"));
  CHECK_THAT(error_of(with("schedule", nlohmann::json::array({{{"learner", 1}, {"join", "2h"},
                                                                 {"leave", "1h"}}}))),
             Catch::Contains("leave must be after join"));
  CHECK_THAT(error_of(with("schedule", nlohmann::json::array(
                                           {{{"learner", 1}, {"join", "1h"}, {"leave", "3h"}},
                                            {{"learner", 1}, {"join", "2h"}, {"leave", "4h"}}}))),
             Catch::Contains("windows of learner 1 overlap"));
  CHECK(error_of(base) == "accepted");
}

TEST_CASE("token sums are counted only for their readers; every other statistic is the same",
          "[models][decoupled]") {
  // Slower learners and outages: late reports, applied fragments and rejoins.
  const auto run = [](bool observed) {
    Harness h(6, 4, testing::simple_job());
    h.cluster().add_slowdown(cluster::SlowdownTarget::slice(4), 1.3,
                             cluster::SlowdownMode::kScale, core::SimTime::zero());
    core::Rng rng = core::Rng::for_stream(11, "decoupled-outages");
    for (int i = 0; i < 40; ++i) {
      const double at = 3000.0 * rng.uniform01();
      h.outage(at, 50 + 200 * rng.uniform01(), static_cast<uint32_t>(rng.below(6)));
    }
    auto d = std::make_unique<DecoupledDiloco>(config(6, 8, 4, 2, 1));
    Rounds rounds;
    if (observed) {
      run_observed(h, *d, rounds, 3000);
    } else {
      h.run(*d, 3000);
    }
    return std::pair{d->syncer_stats(), d->progress(h.sim().now())};
  };
  const auto [counted, p1] = run(true);
  const auto [plain, p2] = run(false);
  CHECK(counted.tokens_merged > 0);
  CHECK(plain.tokens_merged == 0);
  // Every statistic but the token sum, the same both ways.
  const auto rest = [](const SyncerStats& s) {
    return std::tuple{s.rounds, s.quorum_sum, s.quorum_max, s.contributions, s.staleness_sum,
                      s.staleness_max, s.grace_wait, s.grace_rounds, s.sync_time, s.late,
                      s.lateness, s.lateness_max, s.wan_bytes, s.rejoins,
                      s.rejoin_staleness_max, s.clock_jumps, s.learner_contributions,
                      s.learner_quorum, s.learner_staleness_sum};
  };
  CHECK(rest(counted) == rest(plain));
  CHECK(counted.rounds > 100);
  CHECK(counted.rejoins > 0);
  CHECK(counted.contributions > counted.quorum_sum);  // late reports rode along
  CHECK(p1.tokens == p2.tokens);
  CHECK(p1.steps == p2.steps);
}

TEST_CASE("a round observer attached after the first merge of an uncounted run is refused",
          "[models][decoupled]") {
  // Its records' token sums would start from zero marks: a checked contract,
  // which aborts (in a child process here). Before the first merge it is fine.
  const auto attach_at = [](double seconds) {
    const pid_t child = ::fork();
    if (child == 0) {
      ::close(STDERR_FILENO);  // the check's message
      Harness h(4, 4, testing::simple_job());
      DecoupledDiloco d(config(4, 4, 4, 2, 1));
      h.cluster().add_observer(&d);
      d.start(h.ctx());
      h.sim().run_until(core::SimTime::zero() + core::Duration::from_seconds(seconds));
      Rounds rounds;
      rounds.attach(d);
      h.sim().run_until(core::SimTime::zero() + core::Duration::from_seconds(seconds + 10));
      ::_exit(rounds.all.empty() ? 3 : 0);
    }
    REQUIRE(child > 0);
    int status = 0;
    REQUIRE(::waitpid(child, &status, 0) == child);
    return status;
  };
  const int before = attach_at(0.5);
  CHECK((WIFEXITED(before) && WEXITSTATUS(before) == 0));
  const int after = attach_at(20);
  CHECK((WIFSIGNALED(after) && WTERMSIG(after) == SIGABRT));
}

}  // namespace
}  // namespace goodsim::models::policy
