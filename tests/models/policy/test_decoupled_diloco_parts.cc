// The parts of decoupled_diloco's syncer, each on its own against
// hand-computed cases: the fragment schedule, the quorum and grace window,
// the merge accounting, the rounds' published state, the transfers and the
// contributions of a learner with a known clock.
#include <catch2/catch.hpp>

#include <algorithm>
#include <deque>
#include <memory>
#include <vector>

#include "models/policy/decoupled_diloco_merge.h"
#include "models/policy/decoupled_diloco_quorum.h"
#include "models/policy/decoupled_diloco_rounds.h"
#include "models/policy/decoupled_diloco_schedule.h"
#include "models/policy/decoupled_diloco_stats.h"
#include "models/policy/decoupled_diloco_transfers.h"
#include "models/policy/fixed_list.h"
#include "sim/core/rng.h"
#include "tests/support/harness.h"

namespace goodsim::models::policy {
namespace {

using core::Duration;
using core::SimTime;

SimTime at_s(double s) { return SimTime::zero() + Duration::from_seconds(s); }

TEST_CASE("fragment schedule: offsets, rounds and reports by hand", "[models][decoupled]") {
  const FragmentSchedule s(4, 6);  // t_p = floor(6 p / 4) = 0, 1, 3, 4
  CHECK(s.offset(0) == 0);
  CHECK(s.offset(1) == 1);
  CHECK(s.offset(2) == 3);
  CHECK(s.offset(3) == 4);
  CHECK(s.round_step(2, 3) == 21);
  CHECK(s.first_round(0) == 1);  // no report at step 0
  CHECK(s.first_round(1) == 0);
  CHECK(s.latest(1, 12) == 7);
  CHECK(s.latest(0, 5) == 0);
  CHECK(s.next(1, 7) == 13);
  CHECK(s.next(0, -20) == 6);
  CHECK(s.next_round(1, 7) == 2);
  CHECK(s.latest_any(0) == 0);
  CHECK(s.latest_any(5) == 4);
  CHECK(s.latest_any(6) == 6);
  uint32_t p = 9;
  uint64_t n = 9;
  CHECK(s.report_at_or_after(5, p, n) == 6);
  CHECK((p == 0 && n == 1));
  CHECK(s.report_at_or_after(2, p, n) == 3);
  CHECK((p == 2 && n == 0));
  CHECK(s.report_at_or_after(-3, p, n) == 1);
  CHECK((p == 1 && n == 0));
  CHECK(s.report_at_or_after(13, p, n) == 13);
  CHECK((p == 1 && n == 2));
}

TEST_CASE("fragment schedule: the next report of any fragment against a brute-force search",
          "[models][decoupled]") {
  for (uint64_t h = 1; h <= 9; ++h) {
    for (uint32_t fragments = 1; fragments <= h; ++fragments) {
      const FragmentSchedule s(fragments, h);
      for (int64_t from = -2 * static_cast<int64_t>(h); from <= 3 * static_cast<int64_t>(h);
           ++from) {
        int64_t best = INT64_MAX;
        uint32_t best_p = 0;
        for (uint32_t q = 0; q < fragments; ++q) {
          const int64_t c = s.next(q, from - 1);
          if (c < best) best = c, best_p = q;
        }
        uint32_t p = 0;
        uint64_t n = 0;
        INFO("P " << fragments << " H " << h << " from " << from);
        CHECK(s.report_at_or_after(from, p, n) == best);
        CHECK(p == best_p);
        CHECK(s.round_step(p, n) == best);
      }
    }
  }
}

TEST_CASE("fragment schedule: the multiplying divider against division", "[models][decoupled]") {
  core::Rng rng = core::Rng::for_stream(11, "test/divider");
  const std::vector<uint64_t> divisors = {1, 2, 3, 7, 24, 25, 64, 1000, 65537, 4294967291ULL,
                                          UINT32_MAX, uint64_t{UINT32_MAX} + 1, 1ULL << 40};
  for (const uint64_t h : divisors) {
    const FloorDivider div(h);
    const auto hh = static_cast<int64_t>(h);
    // Edges of the multiplying range, then random 32-bit values, then any.
    std::vector<int64_t> as = {0, 1, hh - 1, hh, hh + 1, int64_t{UINT32_MAX} - 1,
                               int64_t{UINT32_MAX}, int64_t{UINT32_MAX} + 1, -1, -hh, -hh - 1};
    for (int i = 0; i < 20000; ++i) as.push_back(static_cast<int64_t>(rng.below(1ULL << 32)));
    for (int i = 0; i < 2000; ++i) as.push_back(static_cast<int64_t>(rng.next_u64() >> 2) - (1LL << 61));
    for (const int64_t a : as) {
      INFO("a " << a << " h " << h);
      REQUIRE(div(a) == floor_div(a, hh));
    }
  }
  // latest() and next() of the schedule against a search step by step.
  const FragmentSchedule s(5, 24);
  const auto report = [&s](uint32_t p, int64_t c) {
    return c >= 1 && floor_div(c - static_cast<int64_t>(s.offset(p)), 24) * 24 ==
                         c - static_cast<int64_t>(s.offset(p));
  };
  for (int64_t c = -60; c < 3000; c += 7) {
    for (uint32_t p = 0; p < 5; ++p) {
      int64_t latest = c;
      while (latest >= 1 && !report(p, latest)) --latest;
      int64_t next = c + 1;
      while (!report(p, next)) ++next;
      CHECK(s.latest(p, c) == std::max<int64_t>(latest, 0));
      CHECK(s.next(p, c) == next);
    }
  }
}

TEST_CASE("merge accounting: a round's record and the totals by hand", "[models][decoupled]") {
  SyncerStats st;
  st.learner_contributions.assign(2, 0);
  st.learner_quorum.assign(2, 0);
  st.learner_staleness_sum.assign(2, 0);
  const std::vector<Contribution> merged = {{0, 8, 1, true, 100.0, 50.0, 4},
                                            {1, 9, 2, false, 30.0, 9.0, 10}};
  RoundRecord rec;
  rec.grace_wait = Duration::seconds(2);
  rec.sync_time = Duration::seconds(1);
  tally_round(rec, merged, st);
  CHECK(rec.quorum == 1);
  CHECK(rec.contributors == 2);
  CHECK(rec.tokens == 130.0);
  CHECK(rec.weight == 59.0);
  CHECK(rec.max_staleness == 10);
  CHECK(rec.mean_staleness == 7.0);
  CHECK(st.rounds == 1);
  CHECK(st.quorum_sum == 1);
  CHECK(st.contributions == 2);
  CHECK(st.staleness_sum == 14);
  CHECK(st.staleness_max == 10);
  CHECK(st.grace_rounds == 1);
  CHECK(st.grace_wait == Duration::seconds(2));
  CHECK(st.learner_staleness_sum == std::vector<uint64_t>{4, 10});
  CHECK(st.mean_staleness() == 7.0);
  CHECK(*st.learner_mean_staleness(1) == 10.0);
  CHECK(!SyncerStats{}.learner_mean_staleness(0));

  // A second round without grace, then three more copies of it.
  const SyncerStats before = st;
  RoundRecord second;
  second.sync_time = Duration::seconds(3);
  tally_round(second, {{1, 12, 1, true, 40.0, 16.0, 2}}, st);
  st.add_late(Duration::seconds(5));
  const SyncerStats d = stats_delta(before, st);
  CHECK(d.rounds == 1);
  CHECK(d.grace_rounds == 0);
  CHECK(d.late == 1);
  add_times(st, d, 3);
  CHECK(st.rounds == 5);
  CHECK(st.quorum_sum == 5);
  CHECK(st.contributions == 6);
  CHECK(st.staleness_sum == 14 + 4 * 2);
  CHECK(st.sync_time == Duration::seconds(1 + 4 * 3));
  CHECK(st.tokens_merged == 130.0 + 4 * 40.0);
  CHECK(st.late == 4);
  CHECK(st.lateness == Duration::seconds(20));
  CHECK(st.lateness_max == Duration::seconds(5));
  CHECK(st.learner_contributions == std::vector<uint64_t>{1, 5});
  CHECK(st.learner_quorum == std::vector<uint64_t>{1, 4});  // learner 1's first was late
  CHECK(st.grace_rounds == 1);
}

TEST_CASE("quorum: the k-th earliest report and the grace window by hand",
          "[models][decoupled]") {
  const std::vector<SimTime> ready = {at_s(5), at_s(1), SimTime::max(), at_s(3)};
  std::vector<SimTime> scratch;
  CHECK(kth_earliest(ready, 1, scratch) == at_s(1));
  CHECK(kth_earliest(ready, 2, scratch) == at_s(3));
  CHECK(kth_earliest(ready, 3, scratch) == at_s(5));
  CHECK(kth_earliest(ready, 4, scratch) == SimTime::max());

  GraceWindow g(2, 0.5, 0.5);  // tau 2, gamma 0.5, newest weight 0.5
  CHECK(g.window() == Duration::zero());
  g.observe_quorum(0.2, 2.0, 2);  // step 1 s, to quorum 0.2 s
  g.observe_sync(Duration::millis(400));
  CHECK(g.window() == Duration::millis(700));  // 0.5 x (2 x 1 - 0.2 - 0.4)
  g.observe_quorum(0.6, 3.0, 1);  // step 2 s, to quorum 0.4 s
  CHECK(g.window() == Duration::millis(1600));  // 0.5 x (2 x 2 - 0.4 - 0.4)
  g.observe_quorum(-1.0, 0.0, 0);  // nothing observed: unchanged
  CHECK(g.window() == Duration::millis(1600));
  g.observe_sync(Duration::seconds(20));  // slack negative: no window
  CHECK(g.window() == Duration::zero());
}

TEST_CASE("rounds: the earliest report follows every change, against a scan",
          "[models][decoupled]") {
  FragmentRounds r;
  r.start(std::vector<uint64_t>{1, 0, 0}, 5, at_s(0), false);
  core::Rng rng = core::Rng::for_stream(7, "test/earliest");
  for (int i = 0; i < 4000; ++i) {
    const auto p = static_cast<uint32_t>(rng.below(3));
    const auto m = static_cast<uint32_t>(rng.below(5));
    // Ties and "never" are frequent: few distinct times.
    const uint64_t v = rng.below(7);
    r.set_ready(p, m, v == 6 ? SimTime::max() : at_s(static_cast<double>(v)));
    if (i % 500 == 499) r.shift(1, Duration::seconds(3), std::vector<uint8_t>(15, 1));
    const std::span<const SimTime> row = r.ready(p);
    REQUIRE(r.earliest(p) == *std::min_element(row.begin(), row.end()));
  }
}

TEST_CASE("fixed list: keeps the newest N, oldest first", "[models][decoupled]") {
  FixedList<int, 3> l;
  CHECK(l.empty());
  for (int i = 1; i <= 5; ++i) l.push_back(i);
  CHECK(std::vector<int>(l.begin(), l.end()) == std::vector<int>{3, 4, 5});
  CHECK(l.full());
  l.erase_front(2);
  CHECK(std::vector<int>(l.begin(), l.end()) == std::vector<int>{5});
  l.push_back(6);
  l.truncate(1);
  CHECK(l.back() == 5);
  l.pop_back();
  CHECK(l.empty());
}

TEST_CASE("fixed list: random operations match a deque that keeps the newest N",
          "[models][decoupled]") {
  // Random operations against a std::deque keeping the newest 4.
  FixedList<int, 4> l;
  std::deque<int> ref;
  core::Rng rng = core::Rng::for_stream(3, "fixed-list");
  for (int i = 0; i < 5000; ++i) {
    const uint64_t op = rng.below(5);
    if (op <= 1) {
      l.push_back(i);
      ref.push_back(i);
      if (ref.size() > 4) ref.pop_front();
    } else if (op == 2 && !ref.empty()) {
      const size_t n = rng.below(ref.size() + 1);
      l.erase_front(n);
      ref.erase(ref.begin(), ref.begin() + static_cast<std::ptrdiff_t>(n));
    } else if (op == 3 && !ref.empty()) {
      l.pop_back();
      ref.pop_back();
    } else if (!ref.empty()) {
      const size_t n = rng.below(ref.size() + 1);
      l.truncate(n);
      ref.resize(n);
    }
    REQUIRE(l.size() == ref.size());
    REQUIRE(std::vector<int>(l.begin(), l.end()) == std::vector<int>(ref.begin(), ref.end()));
    for (size_t j = 0; j < ref.size(); ++j) REQUIRE(l[j] == ref[j]);
    if (!ref.empty()) REQUIRE(l.back() == ref.back());
  }
}

TEST_CASE("rounds: merge times and deliveries as published", "[models][decoupled]") {
  FragmentRounds r;
  const std::vector<uint64_t> first = {1, 0};
  r.start(first, 2, at_s(0), false);
  CHECK(r.open_round(0) == 1);
  CHECK(r.merge_time(0, 1) == FragmentRounds::kUnknown);  // nothing scheduled
  r.fragment(0).event_time = at_s(10);
  CHECK(r.merge_time(0, 1) == at_s(10));
  CHECK(r.merge_time(0, 2) == FragmentRounds::kUnknown);  // not the open round
  CHECK(r.delivery(0, 0, 1) == FragmentRounds::kUnknown);  // not merged yet

  r.fragment(0).round = 2;  // round 1 merged: sent to learner 0 only
  r.sent(0, 0, 1, at_s(12));
  CHECK(r.delivery(0, 0, 1) == at_s(12));
  CHECK(r.delivery(0, 1, 1) == SimTime::zero());  // not sent: nothing to wait for
  r.fragment(0).round = 6;
  for (uint64_t n = 2; n <= 5; ++n) r.sent(0, 0, n, at_s(10.0 * static_cast<double>(n) + 2));
  CHECK(r.delivery(0, 0, 1) == at_s(22));  // round 1's dropped: the earliest later one
  CHECK(r.delivery(0, 0, 4) == at_s(42));
  r.drop_pending(0, at_s(45));  // round 5's (at 52) never arrives
  CHECK(r.delivery(0, 0, 5) == SimTime::zero());
  r.stop();
  r.fragment(1).event_time = at_s(3);
  CHECK(r.merge_time(1, 0) == FragmentRounds::kUnknown);

  FragmentRounds g;
  g.start(first, 1, at_s(0), true);  // a grace window may follow the quorum
  g.fragment(0).event_time = at_s(4);
  CHECK(g.merge_time(0, 1) == FragmentRounds::kUnknown);
  g.fragment(0).phase = FragmentRounds::Phase::kGrace;
  CHECK(g.merge_time(0, 1) == at_s(4));
}

TEST_CASE("rounds: a period's shift is recognised, and only it", "[models][decoupled]") {
  FragmentRounds a;
  a.start(std::vector<uint64_t>{1}, 2, at_s(0), false);
  a.set_ready(0, 0, at_s(3));
  a.sent(0, 0, 0, at_s(1));
  a.fragment(0).event_time = at_s(3);
  FragmentRounds b = a;
  b.shift(1, Duration::seconds(5), {1, 0});  // learner 0 moves, learner 1 stays
  b.fragment(0).event_time = at_s(8);
  CHECK(b.fragment_shifted(a, 0, Duration::seconds(5)));
  CHECK(!b.fragment_shifted(a, 0, Duration::seconds(4)));
  CHECK(b.slot_shifted(a, 0, 0, Duration::seconds(5)));
  CHECK(b.delivery(0, 0, 1) == at_s(6));
  CHECK(b.slot_same(a, 0, 1));
  CHECK(!b.slot_same(a, 0, 0));
}

TEST_CASE("transfers: pull and broadcast times by hand", "[models][decoupled]") {
  DecoupledDilocoConfig config;
  config.fragments = 4;
  config.inner_steps = 4;
  // simple_job: 2e9 gradient bytes, 800 Gb/s inside a site: a quarter is 5 ms.
  testing::Harness one(4, 4, testing::simple_job());
  FragmentTransfers t(one.ctx(), config);
  CHECK(t.bytes(2) == 5e8);
  REQUIRE(t.delivery_bound());
  CHECK(*t.delivery_bound() == Duration::millis(10));
  t.begin(1, true);
  for (int i = 0; i < 3; ++i) t.add(0);
  CHECK(t.times().size() == 3);
  CHECK(t.longest() == Duration::millis(5));
  CHECK(t.reachable(0));

  // Two sites, one 1 Gb/s link with 20 ms latency: two flows share it.
  testing::Harness two(4, 4, testing::simple_job(), 0, {{"a", 2}, {"b", 2}});
  two.network().add_link(0, 1, 1e9, Duration::millis(20));
  FragmentTransfers w(two.ctx(), config);
  CHECK(!w.delivery_bound());
  w.begin(0, false);
  w.add(0);
  w.add(1);
  w.add(1);
  const FragmentTransfers::Times& times = w.times();
  REQUIRE(times.size() == 3);
  CHECK(*times[0] == Duration::millis(5));
  CHECK(*times[1] == Duration::millis(8020));  // 4e9 bits at 0.5 Gb/s, plus latency
  CHECK(*times[2] == Duration::millis(8020));
  CHECK(w.reachable(1));
}

// One learner on 2 slices, 1 s steps, 1000 tokens a step (simple_job), P = 1,
// H = 4, tau = 1: reports at schedule steps 4, 8, ...
TEST_CASE("merge: contributions of a learner with a known clock", "[models][decoupled]") {
  testing::Harness h(2, 4, testing::simple_job());
  ElasticSpec spec;
  DecoupledDilocoLearners learners;
  learners.push_back(std::make_unique<DecoupledDilocoLearner>(h.ctx(), 0, 0, 2, spec, 500.0,
                                                              [](ElasticGroup&) {}));
  learners[0]->group().start();
  learners[0]->record();
  const FragmentSchedule schedule(1, 4);
  FragmentMerge merge(schedule, 1, learners);
  std::vector<Contribution> out;

  h.sim().run_until(at_s(4.5));  // 4 steps done, report 4 made
  merge.contribute(0, 0, 4, h.sim().now(), out);
  REQUIRE(out.size() == 1);
  CHECK(out[0].in_quorum);
  CHECK(out[0].tokens == 4000.0);
  CHECK(out[0].weight == 4000.0 * 4000.0 / 4);
  CHECK(out[0].staleness == 4);
  CHECK(merge.slot(0, 0).consumed == 4);
  out.clear();
  merge.contribute(0, 0, 8, h.sim().now(), out);  // nothing new
  CHECK(out.empty());

  // The merge reaches it at 5.2 s (own step 5): applied at the sync point of
  // report 4 (step 5), the new base.
  merge.arrive(0, 0, at_s(5.2));
  h.sim().run_until(at_s(8.5));
  CHECK(merge.application_point(0, 0, merge.slot(0, 0).arrivals[0]) == 5);
  merge.contribute(0, 0, 12, h.sim().now(), out);  // report 8, late for round 3
  REQUIRE(out.size() == 1);
  CHECK(!out[0].in_quorum);
  CHECK(out[0].tokens == 3000.0);
  CHECK(out[0].weight == 3000.0 * 3000.0 / 3);
  CHECK(out[0].staleness == 3);
  CHECK(merge.slot(0, 0).base_own == 5);
  CHECK(merge.slot(0, 0).arrivals.empty());
  CHECK(merge.current_base(0, 0, h.sim().now()).own == 5);
  CHECK(merge.keep_from(0, h.sim().now()) == 8 - 6);  // H + tau + 1 steps back

  // Report 12 with no newer fragment applied: its tokens count from report 8
  // (merged already), its staleness from the base at step 5.
  h.sim().run_until(at_s(12.5));
  out.clear();
  merge.contribute(0, 0, 12, h.sim().now(), out);
  REQUIRE(out.size() == 1);
  CHECK(out[0].in_quorum);
  CHECK(out[0].tokens == 4000.0);
  CHECK(out[0].weight == 4000.0 * 4000.0 / 4);
  CHECK(out[0].staleness == 7);
}

}  // namespace
}  // namespace goodsim::models::policy
