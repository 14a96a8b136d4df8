// The per-flip member bookkeeping (SlicePool, SliceRangeHealth, SpareSlices) against a
// brute-force recount from the cluster's tables, on random outage sequences.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <vector>

#include "models/policy/slice_pool.h"
#include "models/policy/slice_range_health.h"
#include "models/policy/spare_slices.h"
#include "sim/core/rng.h"

namespace goodsim::models::policy {
namespace {

using cluster::Domain;
using cluster::SliceId;

// Three sites of unequal size, 2 chips per host, 3 hosts per slice.
cluster::Layout test_layout(uint32_t spares) {
  return cluster::Layout(2, 3, {{"a", 7}, {"b", 5}, {"c", 9}}, spares);
}

// Starts or ends a random outage of a random unit; every flip goes to `on_change`.
template <typename OnChange>
struct OutageDriver : cluster::ClusterObserver {
  cluster::ClusterState& state;
  core::Rng rng;
  OnChange on_change;
  std::vector<std::pair<Domain, uint32_t>> active;

  OutageDriver(cluster::ClusterState& s, uint64_t seed, OnChange f)
      : state(s), rng(seed), on_change(f) {
    state.add_observer(this);
  }
  void on_cluster_change(const cluster::ClusterChange& c) override { on_change(c); }
  void step() {
    if (!active.empty() && rng.below(2) == 0) {
      const size_t i = rng.below(active.size());
      state.repair(active[i].first, active[i].second, core::SimTime::zero());
      active.erase(active.begin() + static_cast<std::ptrdiff_t>(i));
      return;
    }
    // Sites rarely (a site takes everything in it down at once).
    const Domain d = static_cast<Domain>(rng.below(20) == 0 ? 3 : rng.below(3));
    const auto id = static_cast<uint32_t>(rng.below(state.layout().count(d)));
    state.fail(d, id, core::SimTime::zero());
    active.emplace_back(d, id);
  }
};

void check_pool(const SlicePool& pool, const std::set<SliceId>& members,
                const cluster::ClusterState& state) {
  const cluster::Layout& l = state.layout();
  std::vector<uint32_t> per_site(l.sites(), 0);
  uint32_t down = 0;
  std::optional<SliceId> first_down;
  for (SliceId s : members) {
    ++per_site[l.site_of(s)];
    if (!state.slice_up(s)) {
      ++down;
      if (!first_down) first_down = s;
    }
  }
  REQUIRE(pool.member_list() == std::vector<SliceId>(members.begin(), members.end()));
  REQUIRE(pool.members_per_site() == per_site);
  REQUIRE(pool.down_members() == down);
  REQUIRE(pool.first_down_member() == first_down);
  std::vector<SliceId> from_ranges;
  for (const auto& [first, end] : pool.member_ranges()) {
    REQUIRE(first < end);
    for (SliceId s = first; s < end; ++s) from_ranges.push_back(s);
  }
  REQUIRE(from_ranges == pool.member_list());
  for (size_t i = 1; i < pool.member_ranges().size(); ++i) {
    REQUIRE(pool.member_ranges()[i - 1].second < pool.member_ranges()[i].first);  // maximal
  }
  for (SliceId s = 0; s < l.slices(); ++s) REQUIRE(pool.is_member(s) == (members.count(s) != 0));
}

TEST_CASE("slice pool bookkeeping matches a recount on random flips", "[models][parts]") {
  const cluster::Layout layout = test_layout(6);
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    cluster::ClusterState state(layout);
    SlicePool pool(layout.slices() - 6, 6, state);
    std::set<SliceId> members, spares;
    for (SliceId s = 0; s < layout.slices(); ++s) (s < layout.slices() - 6 ? members : spares).insert(s);
    auto flips = [&pool](const cluster::ClusterChange& c) {
      for (SliceId s : c.slices_flipped) pool.on_flip(s, c.failed);
    };
    OutageDriver driver(state, seed, flips);
    for (int i = 0; i < 400; ++i) {
      driver.step();
      // Now and then swap the lowest down member for the lowest up spare,
      // the way data_parallel does, and mirror it by brute force.
      if (driver.rng.below(3) == 0 && pool.first_down_member()) {
        const SliceId failed = *pool.first_down_member();
        std::optional<SliceId> spare;
        for (SliceId s : spares) {
          if (state.slice_up(s)) {
            spare = s;
            break;
          }
        }
        REQUIRE(pool.has_up_spare() == spare.has_value());
        REQUIRE(pool.replace(failed, state) == spare);
        if (spare) {
          members.erase(failed), members.insert(*spare);
          spares.erase(*spare), spares.insert(failed);
        }
      }
      check_pool(pool, members, state);
    }
  }
}

TEST_CASE("slice range health matches a recount on random flips", "[models][parts]") {
  const cluster::Layout layout = test_layout(0);
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    cluster::ClusterState state(layout);
    core::Rng pick(seed * 7919);
    const auto first = static_cast<SliceId>(pick.below(layout.slices()));
    const auto end = static_cast<SliceId>(first + 1 + pick.below(layout.slices() - first));
    SliceRangeHealth health(state, first, end);
    auto forward = [&health, first, end, &layout](const cluster::ClusterChange& c) {
      const cluster::ChipId c0 = layout.first_chip(c.domain, c.id);
      const SliceId s0 = layout.slice_of(c0);
      const auto last = static_cast<cluster::ChipId>(c0 + layout.chips_in(c.domain, c.id) - 1);
      const bool covers = s0 < end && layout.slice_of(last) >= first;
      REQUIRE(health.on_cluster_change(c) == covers);
    };
    OutageDriver driver(state, seed, forward);
    for (int i = 0; i < 400; ++i) {
      driver.step();
      uint64_t down = 0;
      uint32_t up = 0;
      std::vector<uint32_t> per_site(layout.sites(), 0);
      for (SliceId s = first; s < end; ++s) {
        down += state.slice_down_chips(s);
        if (state.slice_up(s)) ++up, ++per_site[layout.site_of(s)];
      }
      REQUIRE(health.down_chips() == down);
      REQUIRE(health.up_slices() == up);
      REQUIRE(health.up_per_site() == per_site);
    }
  }
}

TEST_CASE("the spare slices' split matches a recount on random flips", "[models][parts]") {
  // 4 of the 21 slices are spares (the last four: 6 chips each).
  const cluster::Layout layout = test_layout(4);
  cluster::ClusterState state(layout);
  SpareSlices spares(state);
  OutageDriver driver(state, 3, [&spares](const cluster::ClusterChange& c) {
    spares.on_cluster_change(c);
  });
  const auto count = [](const ChipTimeLedger::Split& s, Category c) {
    return s[static_cast<size_t>(c)] / chip_units(1);
  };
  uint64_t most_down = 0;
  for (int i = 0; i < 600; ++i) {
    driver.step();
    uint64_t down = 0;
    for (SliceId s = 17; s < 21; ++s) down += state.slice_down_chips(s);
    ChipTimeLedger::Split split{};
    spares.add_split(split);
    REQUIRE(count(split, Category::kDown) == down);
    REQUIRE(count(split, Category::kIdle) == 24 - down);
    REQUIRE(count(split, Category::kProductive) == 0);
    most_down = std::max(most_down, down);
  }
  CHECK(most_down >= 12);  // outages reached the spares, often several at once
}

}  // namespace
}  // namespace goodsim::models::policy
