// The event queue against a reference model: a plain vector kept sorted by
// (time, band, seq), under seeded random push / cancel / pop sequences.
#include <catch2/catch.hpp>

#include <algorithm>
#include <functional>
#include <queue>
#include <limits>
#include <set>
#include <tuple>
#include <vector>

#include "sim/core/event_queue.h"
#include "sim/core/rng.h"

namespace goodsim::core {
namespace {

struct Ref {
  int64_t time;
  Band band;
  uint64_t seq;
  uint64_t a;
  EventId id;
};

bool ref_before(const Ref& x, const Ref& y) {
  return std::tie(x.time, x.band, x.seq) < std::tie(y.time, y.band, y.seq);
}

// One random operation mix; `cancel_share` of operations are cancellations.
void run_against_reference(uint64_t seed, int ops, double cancel_share, int64_t time_span) {
  Rng rng = Rng::for_stream(seed, "queue-reference");
  EventQueue q;
  std::vector<Ref> ref;
  std::vector<EventId> all_ids;  // includes fired and cancelled ones
  int64_t now = 0;
  for (int i = 0; i < ops; ++i) {
    const double u = rng.uniform01();
    if (u < 0.5 || ref.empty()) {
      const int64_t t = now + static_cast<int64_t>(rng.below(time_span));
      const auto band = static_cast<Band>(rng.below(4) * 64);
      const EventId id = q.push(SimTime::from_ns(t), band, 7, static_cast<uint64_t>(i), 0);
      ref.push_back({t, band, q.pushed() - 1, static_cast<uint64_t>(i), id});
      all_ids.push_back(id);
    } else if (u < 0.5 + cancel_share) {
      const EventId id = all_ids[rng.below(all_ids.size())];
      auto it = std::find_if(ref.begin(), ref.end(), [&](const Ref& r) {
        return r.id == id;
      });
      const bool pending = it != ref.end();
      REQUIRE(q.cancel(id) == pending);
      if (pending) ref.erase(it);
    } else {
      auto it = std::min_element(ref.begin(), ref.end(), ref_before);
      REQUIRE(q.next_time().ns() == it->time);
      const Event e = q.pop();
      REQUIRE(e.time.ns() == it->time);
      REQUIRE(e.band == it->band);
      REQUIRE(e.seq == it->seq);
      REQUIRE(e.a == it->a);
      REQUIRE(e.handler == 7u);
      now = e.time.ns();
      ref.erase(it);
    }
    REQUIRE(q.size() == ref.size());
  }
}

TEST_CASE("event queue matches a sorted-vector reference", "[core][queue]") {
  for (uint64_t seed = 1; seed <= 5; ++seed) run_against_reference(seed, 20000, 0.1, 1000);
}

// Against a std::priority_queue of (time, band, seq) with lazy deletion of
// cancelled events: sizes up to `peak` pending, delays over `span` ns drawn
// so that many events share a time (ties broken by band, then seq), pops of
// runs of events and random cancellations, including of fired events.
void run_against_priority_queue(uint64_t seed, int ops, size_t peak, int64_t span) {
  using Key = std::tuple<int64_t, Band, uint64_t>;
  std::priority_queue<Key, std::vector<Key>, std::greater<>> ref;
  std::set<uint64_t> cancelled;  // seqs cancelled while pending
  std::vector<EventId> ids;      // by seq
  Rng rng = Rng::for_stream(seed, "queue-priority-queue");
  EventQueue q;
  int64_t now = 0;
  auto ref_top = [&] {  // drops cancelled events at the top of the reference
    while (!ref.empty() && cancelled.count(std::get<2>(ref.top())) > 0) ref.pop();
  };
  for (int i = 0; i < ops; ++i) {
    const double u = rng.uniform01();
    if ((u < 0.55 && q.size() < peak) || q.empty()) {
      // Half the delays are small (many ties), some far in the future.
      uint64_t scale = rng.below(4) == 0 ? static_cast<uint64_t>(span) * 1000 : span;
      // Never past the largest time: now + scale stays an int64.
      scale = std::min(scale, static_cast<uint64_t>(std::numeric_limits<int64_t>::max() - now));
      const int64_t t = now + static_cast<int64_t>(rng.below(scale + 1));
      const auto band = static_cast<Band>(rng.below(3) * 100);
      ids.push_back(q.push(SimTime::from_ns(t), band, 3, q.pushed(), 0));
      ref.push({t, band, q.pushed() - 1});
    } else if (u < 0.65) {
      const uint64_t seq = rng.below(ids.size());
      const bool ok = q.cancel(ids[seq]);
      if (ok) cancelled.insert(seq);
      ref_top();
    } else {
      const int run = 1 + static_cast<int>(rng.below(8));
      for (int k = 0; k < run && !q.empty(); ++k) {
        ref_top();
        REQUIRE(!ref.empty());
        const auto [t, band, seq] = ref.top();
        ref.pop();
        REQUIRE(q.next_time().ns() == t);
        const Event e = q.pop();
        REQUIRE(e.time.ns() == t);
        REQUIRE(e.band == band);
        REQUIRE(e.seq == seq);
        REQUIRE(e.a == seq);
        REQUIRE_FALSE(q.cancel(ids[seq]));  // fired: no longer cancellable
        now = t;
      }
    }
    ref_top();
    REQUIRE(q.empty() == ref.empty());
  }
  // Drain: the order holds to the end.
  while (!q.empty()) {
    ref_top();
    REQUIRE(q.pop().seq == std::get<2>(ref.top()));
    ref.pop();
  }
  ref_top();
  CHECK(ref.empty());
}

TEST_CASE("event queue matches std::priority_queue under random push, cancel and pop",
          "[core][queue]") {
  // Small sizes stay in the near heap; large ones and wide spans go through the
  // radix buckets (whole-bucket moves and splits), with ties at every scale.
  run_against_priority_queue(1, 50000, 50, 1000);
  run_against_priority_queue(2, 200000, 5000, 1000);
  run_against_priority_queue(3, 200000, 20000, int64_t{1} << 40);
  run_against_priority_queue(4, 100000, 100000, 16);
}

TEST_CASE("event queue orders times across the whole signed range", "[core][queue]") {
  EventQueue q;
  const std::vector<int64_t> times = {INT64_MAX, -5, 0, INT64_MIN, 1, INT64_MAX - 1, -1, 1 << 20};
  for (int64_t t : times) q.push(SimTime::from_ns(t), 0, 0, 0, 0);
  std::vector<int64_t> sorted = times;
  std::sort(sorted.begin(), sorted.end());
  for (int64_t t : sorted) CHECK(q.pop().time.ns() == t);
  // Scheduling before the last event taken is accepted and ordered.
  q.push(SimTime::from_ns(100), 0, 0, 1, 0);
  q.push(SimTime::from_ns(200), 0, 0, 2, 0);
  CHECK(q.pop().a == 1);
  q.push(SimTime::from_ns(50), 0, 0, 3, 0);
  CHECK(q.pop().a == 3);
  CHECK(q.pop().a == 2);
}

TEST_CASE("pop_until takes only events due by the end", "[core][queue]") {
  EventQueue q;
  q.push(SimTime::from_ns(10), 0, 0, 1, 0);
  q.push(SimTime::from_ns(30), 0, 0, 2, 0);
  Event e;
  CHECK_FALSE(q.pop_until(SimTime::from_ns(9), e));
  REQUIRE(q.pop_until(SimTime::from_ns(10), e));
  CHECK(e.a == 1);
  CHECK_FALSE(q.pop_until(SimTime::from_ns(29), e));
  CHECK(q.size() == 1);
  q.push(SimTime::from_ns(20), 0, 0, 3, 0);  // before the event pop_until looked at
  REQUIRE(q.pop_until(SimTime::from_ns(40), e));
  CHECK(e.a == 3);
}

TEST_CASE("event queue with heavy cancellation triggers rebuilds correctly", "[core][queue]") {
  // Cancellations dominate, so stale entries outnumber live ones and the heap
  // is rebuilt many times.
  for (uint64_t seed = 10; seed <= 12; ++seed) run_against_reference(seed, 30000, 0.45, 100000);
}

TEST_CASE("event queue orders ties by band then insertion", "[core][queue]") {
  EventQueue q;
  const SimTime t = SimTime::from_ns(5);
  q.push(t, 2, 0, 1, 0);
  q.push(t, 1, 0, 2, 0);
  q.push(t, 1, 0, 3, 0);
  q.push(SimTime::from_ns(4), 9, 0, 4, 0);
  std::vector<uint64_t> order;
  while (!q.empty()) order.push_back(q.pop().a);
  CHECK(order == std::vector<uint64_t>{4, 2, 3, 1});
}

TEST_CASE("cancelling twice or after firing is refused", "[core][queue]") {
  EventQueue q;
  const EventId a = q.push(SimTime::from_ns(1), 0, 0, 0, 0);
  const EventId b = q.push(SimTime::from_ns(2), 0, 0, 0, 0);
  CHECK(q.cancel(a));
  CHECK_FALSE(q.cancel(a));
  CHECK(q.pop().time.ns() == 2);
  CHECK_FALSE(q.cancel(b));
  CHECK_FALSE(q.cancel(EventId{}));
  CHECK(q.empty());
  // A recycled slot does not honour the old id.
  const EventId c = q.push(SimTime::from_ns(3), 0, 0, 0, 0);
  CHECK_FALSE(q.cancel(a));
  CHECK(q.size() == 1);
  CHECK(q.cancel(c));
}

TEST_CASE("next_time_excluding skips one handler, cancelled and popped events", "[core][queue]") {
  EventQueue q;
  auto at = [](int64_t ns) { return SimTime::from_ns(ns); };
  CHECK(q.next_time_excluding(1) == SimTime::max());
  q.push(at(10), 0, 1, 0, 0);
  const EventId other = q.push(at(20), 0, 2, 0, 0);
  q.push(at(30), 0, 2, 0, 0);
  q.push(at(5), 0, 1, 0, 0);
  CHECK(q.next_time_excluding(1) == at(20));
  CHECK(q.next_time_excluding(2) == at(5));
  CHECK(q.cancel(other));
  CHECK(q.next_time_excluding(1) == at(30));
  CHECK(q.pop().time == at(5));  // popped: left in place until the next operation
  CHECK(q.next_time_excluding(2) == at(10));
  CHECK(q.next_time_excluding(3) == at(10));
}

}  // namespace
}  // namespace goodsim::core
