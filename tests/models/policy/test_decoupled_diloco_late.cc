// decoupled_diloco's late_fragments rule: a hand-computed two-learner
// schedule for "wait" against "skip", K = M without grace step for step
// against synchronous streaming DiLoCo, K = 1 never stalling while
// communication fits in tau steps, and the quorum going on without learners
// that cannot report.
#include <catch2/catch.hpp>

#include <memory>
#include <utility>
#include <vector>

#include "models/policy/decoupled_diloco.h"
#include "models/policy/diloco.h"
#include "sim/core/rng.h"
#include "tests/support/decoupled_config.h"
#include "tests/support/harness.h"

namespace goodsim::models::policy {
namespace {

using testing::Harness;
using Mode = ElasticGroup::Mode;

ChipNanos cn(uint64_t chips, int64_t ns) { return static_cast<ChipNanos>(chip_units(chips)) * ns; }
constexpr int64_t kSec = core::kNanosPerSecond;

DecoupledDilocoConfig config(uint32_t learners, uint64_t h, uint32_t p, uint64_t tau,
                             uint32_t quorum, LateFragments late) {
  DecoupledDilocoConfig c = testing::decoupled_config(learners, h, p, tau, quorum);
  c.transfer.late = late;
  return c;
}

// A job whose fragments move no bytes: merges reach every learner at once.
scenario::JobSpec free_comm_job() {
  scenario::JobSpec job = testing::simple_job();
  job.gradient_bytes = 0;
  return job;
}

core::SimTime at(double s) { return core::SimTime::zero() + core::Duration::from_seconds(s); }

TEST_CASE("wait vs skip: two learners, one 2x slower, K = 2", "[models][decoupled][late]") {
  // One 4-chip slice per learner, H = 4, P = 1 (reports at 4, 8, ...),
  // tau = 1, free communication. Learner 1 steps every 2 s, so round n
  // merges when it reports 4n at 8n s. Learner 0 reaches its sync point
  // 4n + 1 one step after its report of 4n.
  auto setup = [](Harness& h) {
    h.cluster().add_slowdown(cluster::SlowdownTarget::slice(1), 2.0,
                             cluster::SlowdownMode::kScale, core::SimTime::zero());
  };
  SECTION("wait: learner 0 holds at each sync point until learner 1 reports") {
    // Learner 0: held [5, 8) (round 1), then released at own step 5 it
    // reports 8 at 11 s and holds at 9 from 12 s to 16 s (round 2); then
    // [20, 24) and from 28 s (round 4 merges at 32 s).
    Harness h(2, 4, free_comm_job());
    setup(h);
    DecoupledDiloco d(config(2, 4, 1, 1, 2, LateFragments::kWait));
    h.cluster().add_observer(&d);
    d.start(h.ctx());
    const std::vector<std::pair<double, bool>> expect = {
        {4.5, false}, {5.5, true},  {7.9, true},  {8.1, false}, {11.9, false},
        {12.1, true}, {15.9, true}, {16.1, false}, {20.1, true}, {24.1, false},
        {28.1, true}, {30, true}};
    for (const auto& [t, held] : expect) {
      h.sim().run_until(at(t));
      INFO("t = " << t);
      CHECK((d.learner(0).group().mode() == Mode::kHeld) == held);
      CHECK(d.learner(1).group().mode() == Mode::kRunning);
    }
    d.finish(h.sim().now());
    d.ledger().check_invariant();
    const ChipTimeLedger& l = d.ledger();
    // Learner 0 computed 17 steps and waited 3 + 4 + 4 + 2 s; learner 1 was
    // busy all 30 s (15 steps of 2 s: productive and straggler wait).
    CHECK(d.learner(0).own_now() == 17);
    CHECK(d.learner(1).own_now() == 15);
    CHECK(l.total(Category::kSyncWait) == cn(4, 13 * kSec));
    CHECK(l.total(Category::kProductive) + l.total(Category::kStragglerWait) ==
          cn(4, 47 * kSec));
    CHECK(l.total(Category::kLostWork) == 0);
    CHECK(d.gate().stalls() == 4);
    CHECK(d.gate().stall_time() == core::Duration::seconds(11));  // the last one goes on
    CHECK(d.syncer_stats().rounds == 3);
    CHECK(d.syncer_stats().mean_quorum() == 2.0);
  }
  SECTION("skip: learner 0 never holds") {
    Harness h(2, 4, free_comm_job());
    setup(h);
    DecoupledDiloco d(config(2, 4, 1, 1, 2, LateFragments::kSkip));
    h.run(d, 30);
    const ChipTimeLedger& l = d.ledger();
    CHECK(d.learner(0).own_now() == 30);
    CHECK(d.learner(1).own_now() == 15);
    CHECK(l.total(Category::kSyncWait) == 0);
    CHECK(l.total(Category::kProductive) + l.total(Category::kStragglerWait) ==
          cn(4, 60 * kSec));
    CHECK(d.gate().stalls() == 0);
    // Rounds still wait for learner 1: merges at 8, 16 and 24 s, learner 0
    // counted with its newest report.
    CHECK(d.syncer_stats().rounds == 3);
  }
}

TEST_CASE("wait: a learner that loses its slices while held goes down", "[models][decoupled][late]") {
  // The two-learner schedule above; learner 0's slice fails at 6.5 s while it
  // waits (held since 5 s) and is back at 16.5 s. It goes down at once and
  // its step since its report of 4 is lost; it rejoins at 47.5 s (30 s
  // restart, 1 s pull).
  Harness h(2, 4, free_comm_job());
  h.cluster().add_slowdown(cluster::SlowdownTarget::slice(1), 2.0, cluster::SlowdownMode::kScale,
                           core::SimTime::zero());
  h.outage(6.5, 10, 0);
  DecoupledDiloco d(config(2, 4, 1, 1, 2, LateFragments::kWait));
  h.cluster().add_observer(&d);
  d.start(h.ctx());
  h.sim().run_until(at(7));
  CHECK(d.learner(0).state() == DecoupledDilocoLearner::State::kDown);
  CHECK(d.learner(1).group().mode() == Mode::kRunning);
  h.sim().run_until(at(60));
  d.finish(h.sim().now());
  d.ledger().check_invariant();
  CHECK(d.ledger().total(Category::kSyncWait) >= cn(4, 1'500'000'000));
  CHECK(d.ledger().total(Category::kLostWork) == cn(4, kSec));  // step 5
  CHECK(d.syncer_stats().rejoins == 1);
  CHECK(d.learner(0).state() == DecoupledDilocoLearner::State::kLive);
}

TEST_CASE("wait, K = M without grace: synchronous streaming DiLoCo step for step",
          "[models][decoupled][late]") {
  // Both defined the same way: tau = 0 (a learner needs the merged fragment
  // right at its report) and free communication, so diloco's barrier (hold
  // at the sync step until every learner is there) and the gate (hold until
  // the round every learner reported is merged) coincide. 4 learners of one
  // slice, two of them slower (1.1 and 1.25), H = 8, P = 4.
  Harness hd(4, 4, free_comm_job()), hs(4, 4, free_comm_job());
  for (Harness* h : {&hd, &hs}) {
    h->cluster().add_slowdown(cluster::SlowdownTarget::slice(2), 1.1,
                              cluster::SlowdownMode::kScale, core::SimTime::zero());
    h->cluster().add_slowdown(cluster::SlowdownTarget::slice(3), 1.25,
                              cluster::SlowdownMode::kScale, core::SimTime::zero());
  }
  DecoupledDilocoConfig dc = config(4, 8, 4, 0, 4, LateFragments::kWait);
  DecoupledDiloco d(dc);
  DilocoConfig sc;
  sc.learners = 4;
  sc.inner_steps = 8;
  sc.fragments = 4;
  sc.overlap_steps = 0;
  sc.elastic = dc.elastic;
  Diloco s(sc);
  hd.cluster().add_observer(&d);
  hs.cluster().add_observer(&s);
  d.start(hd.ctx());
  s.start(hs.ctx());
  // Sample times off the step boundaries (multiples of 0.1 s apart from 0.3).
  for (double t = 50.3; t < 2000; t += 50) {
    hd.sim().run_until(at(t));
    hs.sim().run_until(at(t));
    for (uint32_t k = 0; k < 4; ++k) {
      INFO("t = " << t << ", learner " << k);
      CHECK(d.learner(k).group().steps(at(t)) == s.learner(k).steps(at(t)));
      CHECK(d.learner(k).group().tokens(at(t)) == s.learner(k).tokens(at(t)));
    }
  }
  d.finish(hd.sim().now());
  s.finish(hs.sim().now());
  CHECK(d.ledger().total(Category::kSyncWait) == s.ledger().total(Category::kSyncWait));
  CHECK(d.ledger().total(Category::kProductive) == s.ledger().total(Category::kProductive));
  CHECK(d.syncer_stats().rounds == s.stats().syncs);
  CHECK(d.gate().stalls() > 0);
}

TEST_CASE("wait, K = 1: no stall while communication fits in tau steps",
          "[models][decoupled][late]") {
  // 8 learners at speeds from 1 to 1.5, 300 random slice outages over a day,
  // P = H = 24, tau = 2; a fragment's pull and broadcast take 2 x 0.83 ms.
  auto run = [](LateFragments late) {
    Harness h(8, 4, testing::simple_job());
    for (cluster::SliceId s = 1; s < 8; ++s) {
      h.cluster().add_slowdown(cluster::SlowdownTarget::slice(s), 1.0 + 0.5 * s / 7.0,
                               cluster::SlowdownMode::kScale, core::SimTime::zero());
    }
    core::Rng rng = core::Rng::for_stream(11, "late-outages");
    for (int i = 0; i < 300; ++i) {
      const double t = 86400.0 * rng.uniform01();
      h.outage(t, 30 + 600 * rng.uniform01(), static_cast<uint32_t>(rng.below(8)));
    }
    auto d = std::make_unique<DecoupledDiloco>(config(8, 24, 24, 2, 1, late));
    h.run(*d, 86400);
    return std::make_pair(d->gate().stalls(), d->ledger().total(Category::kSyncWait));
  };
  const auto waited = run(LateFragments::kWait);
  const auto skipped = run(LateFragments::kSkip);
  CHECK(waited.first == 0);
  CHECK(waited.second == skipped.second);
}

TEST_CASE("wait: the quorum goes on without learners that cannot report",
          "[models][decoupled][late]") {
  // K = M = 4; learner 3's slice is down [100.5, 400.5) and it then rejoins
  // (31 s). The rounds go on with the three others, who never stall.
  Harness h(4, 4, testing::simple_job());
  h.outage(100.5, 300, 3);
  DecoupledDiloco d(config(4, 8, 4, 2, 4, LateFragments::kWait));
  h.run(d, 1000.5);
  CHECK(d.outages().downtime() == core::Duration::zero());
  for (uint32_t k = 0; k < 3; ++k) CHECK(d.learner(k).own_now() == 1000);
  CHECK(d.gate().stalls() == 0);
  CHECK(d.syncer_stats().rejoins == 1);
  // Every reporting step of the 1000 made its round (every 2 steps).
  CHECK(d.syncer_stats().rounds == 500);
}

}  // namespace
}  // namespace goodsim::models::policy
