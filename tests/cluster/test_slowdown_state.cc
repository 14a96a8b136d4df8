// SlowdownState through ClusterState: max/product semantics, notifications,
// and the segment trees (max and sum) against a brute-force reference over
// random sequences of slowdown changes, failures and repairs.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "sim/cluster/cluster_state.h"
#include "sim/core/rng.h"

namespace goodsim::cluster {
namespace {

using core::SimTime;
constexpr SlowdownMode kSlowest = SlowdownMode::kSlowest;
constexpr SlowdownMode kScale = SlowdownMode::kScale;

struct ChangeLog : ClusterObserver {
  std::vector<SlowdownChange> changes;
  std::vector<std::vector<SliceId>> slices;
  void on_cluster_change(const ClusterChange&) override {}
  void on_slowdown_change(const SlowdownChange& c) override {
    changes.push_back(c);
    slices.emplace_back(c.slices.begin(), c.slices.end());
  }
};

// 2 chips/host, 2 hosts/slice: site a has slices 0-2, b 3-7, c 8.
Layout test_layout() { return Layout(2, 2, {{"a", 3}, {"b", 5}, {"c", 1}}); }

TEST_CASE("slow members combine by max, scale factors multiply", "[straggler][cluster]") {
  const Layout l = test_layout();
  ClusterState s(l);
  const SimTime t;
  CHECK(s.slowdown().max_slowdown(0, l.slices()) == 1.0);
  CHECK(s.table_bytes() < 200);  // nothing allocated before the first slowdown

  s.add_slowdown(SlowdownTarget::chip(0), 1.3, kSlowest, t);  // slice 0
  const SlowdownId b = s.add_slowdown(SlowdownTarget::host(1), 1.5, kSlowest, t);  // slice 0
  CHECK(s.slowdown().slice_slowdown(0) == Approx(1.5));
  CHECK(s.slowdown().slice_slowdown(1) == 1.0);
  s.add_slowdown(SlowdownTarget::site(0), 1.2, kScale, t);  // slices 0-2
  CHECK(s.slowdown().slice_slowdown(0) == Approx(1.8));
  CHECK(s.slowdown().slice_slowdown(2) == Approx(1.2));
  CHECK(s.slowdown().slice_slowdown(3) == 1.0);
  const SlowdownId all = s.add_slowdown(SlowdownTarget::all(), 1.1, kScale, t);
  CHECK(s.slowdown().slice_slowdown(0) == Approx(1.98));
  CHECK(s.slowdown().slice_slowdown(8) == Approx(1.1));
  CHECK(s.slowdown().max_slowdown(0, l.slices()) == Approx(1.98));
  CHECK(s.slowdown().max_slowdown(1, l.slices()) == Approx(1.32));

  // A fleet-wide slow member: every slice is at least that slow.
  const SlowdownId floor = s.add_slowdown(SlowdownTarget::all(), 1.6, kSlowest, t);
  CHECK(s.slowdown().slice_slowdown(0) == Approx(1.1 * 1.2 * 1.6));
  CHECK(s.slowdown().slice_slowdown(3) == Approx(1.1 * 1.6));
  CHECK(s.slowdown().max_slowdown(3, 8) == Approx(1.1 * 1.6));
  s.remove_slowdown(floor, t);

  s.remove_slowdown(b, t);
  CHECK_FALSE(s.slowdown().is_active(b));
  CHECK(s.slowdown().slice_slowdown(0) == Approx(1.1 * 1.2 * 1.3));
  s.update_slowdown(all, 1.0, t);
  CHECK(s.slowdown().slice_slowdown(0) == Approx(1.2 * 1.3));
  CHECK(s.slowdown().active() == 3);
}

TEST_CASE("max_slowdown covers only up slices", "[straggler][cluster]") {
  const Layout l = test_layout();
  ClusterState s(l);
  const SimTime t;
  s.fail(Domain::kSlice, 4, t);  // down before the tables exist
  s.add_slowdown(SlowdownTarget::slice(4), 3.0, kSlowest, t);
  s.add_slowdown(SlowdownTarget::chip(l.first_chip(Domain::kSlice, 5)), 2.0, kSlowest, t);
  CHECK(s.slowdown().slice_slowdown(4) == 3.0);  // still slow while down
  CHECK(s.slowdown().max_slowdown(0, l.slices()) == 2.0);
  s.repair(Domain::kSlice, 4, t);
  CHECK(s.slowdown().max_slowdown(0, l.slices()) == 3.0);
  s.fail(Domain::kSite, 1, t);  // slices 3-7
  CHECK(s.slowdown().max_slowdown(0, l.slices()) == 1.0);
  CHECK(s.slowdown().max_slowdown(3, 8) == 1.0);  // nothing up
  CHECK(s.slowdown().max_slowdown(5, 5) == 1.0);  // empty range
  s.repair(Domain::kSite, 1, t);
  CHECK(s.slowdown().max_slowdown(5, 6) == 2.0);
}

TEST_CASE("observers hear which slices changed", "[straggler][cluster]") {
  const Layout l = test_layout();
  ClusterState s(l);
  ChangeLog log;
  s.add_observer(&log);
  const SimTime t = SimTime::zero() + core::Duration::seconds(7);
  const SlowdownId a = s.add_slowdown(SlowdownTarget::chip(13), 1.5, kSlowest, t);  // slice 3
  REQUIRE(log.changes.size() == 1);
  CHECK(log.changes[0].kind == SlowdownChangeKind::kAdded);
  CHECK(log.changes[0].id == a);
  CHECK(log.changes[0].time == t);
  CHECK(log.changes[0].target == SlowdownTarget::chip(13));
  CHECK_FALSE(log.changes[0].all_slices);
  CHECK(log.slices[0] == std::vector<SliceId>{3});

  s.add_slowdown(SlowdownTarget::chip(14), 1.2, kSlowest, t);  // masked by 1.5: no slice changed
  CHECK(log.slices[1].empty());
  s.add_slowdown(SlowdownTarget::site(1), 1.4, kSlowest, t);  // slices 3-7; 3 stays at 1.5
  CHECK(log.slices[2] == std::vector<SliceId>{4, 5, 6, 7});
  s.update_slowdown(a, 1.3, t);  // slice 3 drops to the site's 1.4
  CHECK(log.changes[3].kind == SlowdownChangeKind::kUpdated);
  CHECK(log.slices[3] == std::vector<SliceId>{3});
  CHECK(s.slowdown().slice_slowdown(3) == Approx(1.4));
  s.add_slowdown(SlowdownTarget::all(), 1.05, kScale, t);
  CHECK(log.changes[4].all_slices);
  CHECK(log.slices[4].empty());
  s.remove_slowdown(a, t);
  CHECK(log.changes[5].kind == SlowdownChangeKind::kRemoved);
  CHECK(log.changes[5].factor == 1.3);
  CHECK(log.slices[5].empty());  // the site's 1.4 still dominates
}

// ---- Brute-force reference --------------------------------------------------

struct RefSlowdown {
  SlowdownId id;
  SlowdownTarget target;
  double factor;
  SlowdownMode mode;
};

bool touches(const Layout& l, SlowdownTarget t, SliceId s) {
  switch (t.scope) {
    case SlowdownScope::kChip: return l.slice_of(t.id) == s;
    case SlowdownScope::kHost: return l.slice_of_host(t.id) == s;
    case SlowdownScope::kSlice: return t.id == s;
    case SlowdownScope::kSite: return l.site_of(s) == t.id;
    case SlowdownScope::kAll: return true;
  }
  return false;
}

double ref_slice(const Layout& l, const std::vector<RefSlowdown>& active, SliceId s) {
  double scale = 1, slowest = 1;
  for (const RefSlowdown& r : active) {
    if (!touches(l, r.target, s)) continue;
    if (r.mode == kScale) scale *= r.factor;
    if (r.mode == kSlowest) slowest = std::max(slowest, r.factor);
  }
  return scale * slowest;
}

double ref_max(const ClusterState& s, const std::vector<double>& per_slice, SliceId first,
               SliceId end) {
  double best = 0;
  for (SliceId i = first; i < end; ++i) {
    if (s.slice_up(i)) best = std::max(best, per_slice[i]);
  }
  return best == 0 ? 1.0 : best;
}

// Sum of (slowdown - 1) over the up slices of [first, end).
double ref_excess(const ClusterState& s, const std::vector<double>& per_slice, SliceId first,
                  SliceId end) {
  double sum = 0;
  for (SliceId i = first; i < end; ++i) {
    if (s.slice_up(i)) sum += per_slice[i] - 1;
  }
  return sum;
}

SlowdownTarget random_target(core::Rng& rng, const Layout& l) {
  const auto scope = static_cast<SlowdownScope>(rng.below(5));
  if (scope == SlowdownScope::kAll) return SlowdownTarget::all();
  const auto d = static_cast<Domain>(scope);
  return {scope, static_cast<uint32_t>(rng.below(l.count(d)))};
}

// One random operation: add, update or remove a slowdown, fail or repair.
struct RandomDriver {
  const Layout& layout;
  ClusterState& state;
  core::Rng rng;
  std::vector<RefSlowdown> active;
  std::vector<std::pair<Domain, uint32_t>> outages;
  SimTime t;

  double random_factor() {
    static constexpr double kFactors[] = {1.0, 1.1, 1.25, 1.5, 2.0};  // ties on purpose
    return rng.below(3) == 0 ? 1 + rng.uniform01() : kFactors[rng.below(5)];
  }
  void step() {
    const uint64_t op = rng.below(10);
    if (op < 4 || active.empty()) {
      const SlowdownTarget target = random_target(rng, layout);
      const double f = random_factor();
      const SlowdownMode mode = rng.below(2) == 0 ? kSlowest : kScale;
      active.push_back({state.add_slowdown(target, f, mode, t), target, f, mode});
    } else if (op < 6) {
      RefSlowdown& r = active[rng.below(active.size())];
      r.factor = random_factor();
      state.update_slowdown(r.id, r.factor, t);
    } else if (op < 8) {
      const size_t i = rng.below(active.size());
      state.remove_slowdown(active[i].id, t);
      active.erase(active.begin() + static_cast<std::ptrdiff_t>(i));
    } else if (op == 8 || outages.empty()) {
      const auto d = static_cast<Domain>(rng.below(4));
      const auto id = static_cast<uint32_t>(rng.below(layout.count(d)));
      state.fail(d, id, t);
      outages.emplace_back(d, id);
    } else {
      const size_t i = rng.below(outages.size());
      state.repair(outages[i].first, outages[i].second, t);
      outages.erase(outages.begin() + static_cast<std::ptrdiff_t>(i));
    }
  }
};

TEST_CASE("segment tree agrees with a brute-force reference", "[straggler][cluster]") {
  const Layout l = test_layout();
  for (uint64_t seed : {1, 2, 3, 4}) {
    ClusterState s(l);
    ChangeLog log;
    s.add_observer(&log);
    RandomDriver drv{l, s, core::Rng(seed), {}, {}, {}};
    std::vector<double> before(l.slices(), 1.0);
    for (int step = 0; step < 400; ++step) {
      const size_t logged = log.changes.size();
      drv.step();
      std::vector<double> now(l.slices());
      for (SliceId i = 0; i < l.slices(); ++i) {
        now[i] = ref_slice(l, drv.active, i);
        INFO("seed " << seed << " step " << step << " slice " << i);
        REQUIRE(s.slowdown().slice_slowdown(i) == Approx(now[i]).epsilon(1e-12));
      }
      for (SliceId a = 0; a <= l.slices(); ++a) {
        for (SliceId b = a; b <= l.slices(); ++b) {
          INFO("seed " << seed << " step " << step << " range " << a << ".." << b);
          REQUIRE(s.slowdown().max_slowdown(a, b) == Approx(ref_max(s, now, a, b)).epsilon(1e-12));
          REQUIRE(s.slowdown().excess_slowdown(a, b) ==
                  Approx(ref_excess(s, now, a, b)).epsilon(1e-12).margin(1e-12));
        }
      }
      if (log.changes.size() > logged && !log.changes.back().all_slices) {
        std::vector<SliceId> expect;
        for (SliceId i = 0; i < l.slices(); ++i) {
          if (std::abs(now[i] - before[i]) > 1e-12) expect.push_back(i);
        }
        INFO("seed " << seed << " step " << step);
        CHECK(log.slices.back() == expect);
      }
      CHECK(s.slowdown().active() == drv.active.size());
      before = now;
    }
  }
}

TEST_CASE("segment tree agrees with the reference on a larger cluster", "[straggler][cluster]") {
  // 300 one-chip slices over 7 uneven sites: tree shapes that are not powers of two.
  std::vector<SiteShape> sites;
  for (uint32_t n : {1u, 17u, 64u, 5u, 100u, 13u, 100u}) sites.push_back({"s" + std::to_string(n), n});
  const Layout l(1, 1, sites);
  ClusterState s(l);
  RandomDriver drv{l, s, core::Rng(99), {}, {}, {}};
  core::Rng pick(7);
  for (int step = 0; step < 3000; ++step) {
    drv.step();
    if (step % 10 != 0) continue;
    std::vector<double> now(l.slices());
    for (SliceId i = 0; i < l.slices(); ++i) now[i] = ref_slice(l, drv.active, i);
    for (int q = 0; q < 30; ++q) {
      auto a = static_cast<SliceId>(pick.below(l.slices() + 1));
      auto b = static_cast<SliceId>(pick.below(l.slices() + 1));
      if (a > b) std::swap(a, b);
      INFO("step " << step << " range " << a << ".." << b);
      REQUIRE(s.slowdown().max_slowdown(a, b) == Approx(ref_max(s, now, a, b)).epsilon(1e-12));
      REQUIRE(s.slowdown().excess_slowdown(a, b) ==
              Approx(ref_excess(s, now, a, b)).epsilon(1e-12).margin(1e-9));
    }
  }
}

TEST_CASE("the sum of slowdowns under a fleet-wide slow member", "[straggler][cluster]") {
  // slice_slowdown = scale x max(own slowest, fleet slowest): slices slower
  // than the fleet's factor keep their own, the others take the fleet's.
  const Layout l = test_layout();
  ClusterState s(l);
  const SimTime t;
  s.add_slowdown(SlowdownTarget::slice(0), 1.5, kSlowest, t);
  s.add_slowdown(SlowdownTarget::slice(1), 1.1, kSlowest, t);
  s.add_slowdown(SlowdownTarget::slice(1), 2.0, kScale, t);
  CHECK(s.slowdown().excess_slowdown(0, 3) == Approx(0.5 + (2.2 - 1)));
  const SlowdownId fleet = s.add_slowdown(SlowdownTarget::all(), 1.25, kSlowest, t);
  // Slice 0: 1.5; slice 1: 2 x 1.25; slice 2: 1.25; slices 3-8: 1.25.
  CHECK(s.slowdown().excess_slowdown(0, 3) == Approx(0.5 + 1.5 + 0.25));
  CHECK(s.slowdown().excess_slowdown(0, l.slices()) == Approx(0.5 + 1.5 + 7 * 0.25));
  s.fail(Domain::kSlice, 0, t);
  CHECK(s.slowdown().excess_slowdown(0, 3) == Approx(1.5 + 0.25));
  s.remove_slowdown(fleet, t);
  CHECK(s.slowdown().excess_slowdown(0, 3) == Approx(1.2));
}

TEST_CASE("slowdown handles are not confused after reuse", "[straggler][cluster]") {
  const Layout l = test_layout();
  ClusterState s(l);
  const SimTime t;
  const SlowdownId a = s.add_slowdown(SlowdownTarget::slice(1), 1.5, kSlowest, t);
  s.remove_slowdown(a, t);
  const SlowdownId b = s.add_slowdown(SlowdownTarget::slice(2), 1.7, kSlowest, t);  // reuses a's slot
  CHECK(a.value() != b.value());
  CHECK(a.value() != 0);
  CHECK_FALSE(s.slowdown().is_active(a));
  CHECK(s.slowdown().is_active(b));
  CHECK(s.slowdown().factor(b) == 1.7);
  CHECK_FALSE(s.slowdown().is_active(SlowdownId()));
}

TEST_CASE("a million-chip cluster: slowdowns cost per slice, not per chip",
          "[straggler][cluster]") {
  // 1.5M chips in 1.5M one-chip slices is the worst case for per-slice tables.
  const Layout l(1, 1, {{"a", 750'000}, {"b", 750'000}});
  ClusterState s(l);
  const SimTime t;
  for (uint32_t c = 0; c < l.chips(); c += 1000) s.add_slowdown(SlowdownTarget::chip(c), 1.01, kSlowest, t);
  s.add_slowdown(SlowdownTarget::chip(123'457), 1.5, kSlowest, t);
  s.add_slowdown(SlowdownTarget::site(1), 1.1, kScale, t);
  CHECK(s.slowdown().max_slowdown(0, l.slices()) == Approx(1.5));
  CHECK(s.slowdown().max_slowdown(750'000, 1'500'000) == Approx(1.1 * 1.01));
  s.fail(Domain::kChip, 123'457, t);
  CHECK(s.slowdown().max_slowdown(0, 750'000) == Approx(1.01));
  CHECK(s.slowdown().excess_slowdown(0, 750'000) == Approx(750 * 0.01));
  // About 100 bytes per slice on top of the health tables.
  CHECK(s.table_bytes() < 110 * l.slices() + 6 * l.chips());
}

}  // namespace
}  // namespace goodsim::cluster
