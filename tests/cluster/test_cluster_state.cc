#include <catch2/catch.hpp>

#include <vector>

#include "sim/cluster/cluster_state.h"

namespace goodsim::cluster {
namespace {

struct Recorder : ClusterObserver {
  std::vector<std::vector<SliceId>> flips;
  std::vector<bool> failed;
  void on_cluster_change(const ClusterChange& c) override {
    flips.emplace_back(c.slices_flipped.begin(), c.slices_flipped.end());
    failed.push_back(c.failed);
  }
};

Layout small_layout() {
  // 2 chips/host, 2 hosts/slice -> 4 chips/slice; site a: 2 slices, b: 1 slice.
  return Layout(2, 2, {{"a", 2}, {"b", 1}});
}

TEST_CASE("layout arithmetic maps chips to hosts, slices and sites", "[cluster]") {
  const Layout l = small_layout();
  CHECK(l.chips() == 12);
  CHECK(l.hosts() == 6);
  CHECK(l.slices() == 3);
  CHECK(l.host_of(5) == 2);
  CHECK(l.slice_of(5) == 1);
  CHECK(l.site_of(2) == 1);
  CHECK(l.first_chip(Domain::kSite, 1) == 8);
  CHECK(l.chips_in(Domain::kSite, 0) == 8);
  CHECK(l.first_slice_of(1) == 2);
  CHECK(l.slice_span(Domain::kChip, 5).first == 1);  // chip 5: slice 1 only
  CHECK(l.slice_span(Domain::kChip, 5).end == 2);
  CHECK(l.slice_span(Domain::kHost, 5).first == 2);  // host 5: chips 10-11, slice 2
  CHECK(l.slice_span(Domain::kSite, 0).first == 0);  // site a: slices 0 and 1
  CHECK(l.slice_span(Domain::kSite, 0).end == 2);
  CHECK_THROWS_AS(Layout(0, 2, {{"a", 1}}), std::invalid_argument);
  CHECK_THROWS_AS(Layout(2, 2, {{"a", 0}}), std::invalid_argument);
  CHECK_THROWS_AS(Layout(65536, 65536, {{"a", 2}}), std::invalid_argument);
}

TEST_CASE("a domain failure takes down exactly its chips and its repair returns them",
          "[cluster]") {
  const Layout l = small_layout();
  ClusterState s(l);
  Recorder rec;
  s.add_observer(&rec);
  const core::SimTime t0;

  s.fail(Domain::kHost, 1, t0);  // chips 2,3 of slice 0
  CHECK(s.down_chips() == 2);
  CHECK_FALSE(s.chip_up(2));
  CHECK(s.chip_up(1));
  CHECK_FALSE(s.slice_up(0));
  CHECK(s.up_slices() == 2);
  CHECK(rec.flips.back() == std::vector<SliceId>{0});

  s.fail(Domain::kChip, 3, t0);  // overlaps: no new down chip, no flip
  CHECK(s.down_chips() == 2);
  CHECK(rec.flips.back().empty());

  s.fail(Domain::kSite, 0, t0);  // slices 0 and 1; only slice 1 flips
  CHECK(s.down_chips() == 8);
  CHECK(rec.flips.back() == std::vector<SliceId>{1});

  s.repair(Domain::kSite, 0, t0);
  CHECK(s.down_chips() == 2);
  CHECK(rec.flips.back() == std::vector<SliceId>{1});
  s.repair(Domain::kHost, 1, t0);
  CHECK(s.down_chips() == 1);  // chip 3's own failure remains
  CHECK_FALSE(s.slice_up(0));
  s.repair(Domain::kChip, 3, t0);
  CHECK(s.down_chips() == 0);
  CHECK(s.down_slices() == 0);
  CHECK(rec.flips.back() == std::vector<SliceId>{0});
  CHECK(rec.failed == std::vector<bool>{true, true, true, false, false, false});
}

TEST_CASE("a chip's outages may overlap to any depth", "[cluster]") {
  // One byte per chip saturates at 255; deeper outages used to abort the run.
  const Layout l = small_layout();
  ClusterState s(l);
  const core::SimTime t{};
  constexpr int kDepth = 1000;
  for (int i = 0; i < kDepth; ++i) s.fail(Domain::kChip, 5, t);
  s.fail(Domain::kSlice, 1, t);  // chips 4-7, chip 5 among them
  CHECK(s.down_chips() == 4);
  s.repair(Domain::kSlice, 1, t);
  CHECK(s.down_chips() == 1);
  for (int i = 0; i < kDepth - 1; ++i) s.repair(Domain::kChip, 5, t);
  CHECK_FALSE(s.chip_up(5));
  CHECK_FALSE(s.slice_up(1));
  s.repair(Domain::kChip, 5, t);
  CHECK(s.chip_up(5));
  CHECK(s.slice_up(1));
  CHECK(s.down_chips() == 0);
  CHECK(s.down_slices() == 0);
}

}  // namespace
}  // namespace goodsim::cluster
