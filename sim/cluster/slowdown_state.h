// Slowdowns of a cluster: which parts run slower than nominal, and by how much.
//
// A slowdown multiplies the step time of the slices it covers by a factor
// >= 1. Each active slowdown has a target (a chip, host, slice, site or the
// whole fleet) and a mode:
//
//   kSlowest - a slow member: a synchronous slice steps at the pace of its
//              slowest member, so kSlowest factors combine by max (two slow
//              chips of 1.3 and 1.5 make the slice 1.5x slower, not 1.95x).
//   kScale   - a whole-slice speed change (older hardware generation, diurnal
//              swing, a job's steady slowdown): kScale factors multiply.
//
// Effective slowdown of slice s:
//   slice_slowdown(s) = prod(kScale factors whose target touches s)
//                       x max(1, max(kSlowest factors whose target touches s))
// where a target touches s if it is s, or contains s (its site, the fleet), or
// lies in s (one of its chips or hosts). A kScale on a chip or host therefore
// scales its whole slice.
//
// max_slowdown(first, end) is the largest slice_slowdown over the slices of
// [first, end) that are up (1.0 if none is up): the pace of a synchronous group
// made of those slices. It is answered in O(log S) from a max segment tree over
// slices, which the owning ClusterState keeps in sync with slice health.
//
// excess_slowdown(first, end) is the sum of (slice_slowdown - 1) over the up
// slices of [first, end): a synchronous group's chips compute for base x their
// own slice's slowdown per step, so accounting needs the sum as well as the max
// (sum of slowdowns = up slices + excess). Sum trees over the same leaves answer
// it in O(log S). A fleet-wide kSlowest factor F > 1 does not distribute over a
// sum (the sum of scale x max(slowest, F) is no function of the two sums), so
// then the sum of slowdowns is
//   fleet.scale x (F x sum scale + sum over slices with slowest > F of
//                  scale x (slowest - F))
// where the second sum walks the up slices whose own (chip, host, slice or
// site) kSlowest factor exceeds 1, kept in an ordered set: O(log S + k) for the
// k such slices in the range.
//
// Storage: dense tables, nothing per chip. Each active slowdown is one pooled
// record, linked into the list of its slice (chip, host and slice targets), of
// its site, or of the fleet. Per slice: the product of the kScale and the max
// of the kSlowest factors of its list, an up flag and five segment-tree leaves
// (about 100 bytes per slice; plus a set node per up slice with its own kSlowest
// factor). Tables are allocated on the first slowdown, so a
// run without stragglers pays nothing.
//
// Costs per change (S slices): chip/host/slice targets O(log S), plus a rescan
// of the slice's list when the slice's largest kSlowest factor is removed or
// lowered, or when a kScale factor changes; site targets O(slices in the site
// x log S); fleet-wide targets O(active fleet-wide slowdowns), independent of S.
//
// Mutations go through ClusterState (add_slowdown, update_slowdown,
// remove_slowdown), which notifies observers; this class only answers queries.
#pragma once

#include <cstdint>
#include <set>
#include <span>
#include <vector>

#include "sim/cluster/layout.h"

namespace goodsim::cluster {

class ClusterState;

enum class SlowdownMode : uint8_t { kSlowest = 0, kScale = 1 };
const char* slowdown_mode_name(SlowdownMode m);  // "slowest", "scale"

// What a slowdown covers: the unit `id` of a failure domain, or the whole fleet.
enum class SlowdownScope : uint8_t { kChip = 0, kHost = 1, kSlice = 2, kSite = 3, kAll = 4 };
const char* slowdown_scope_name(SlowdownScope s);  // "chip", ..., "site", "all"

struct SlowdownTarget {
  SlowdownScope scope = SlowdownScope::kAll;
  uint32_t id = 0;  // unit of `scope`; 0 for kAll

  static SlowdownTarget all() { return {SlowdownScope::kAll, 0}; }
  static SlowdownTarget chip(ChipId c) { return {SlowdownScope::kChip, c}; }
  static SlowdownTarget host(HostId h) { return {SlowdownScope::kHost, h}; }
  static SlowdownTarget slice(SliceId s) { return {SlowdownScope::kSlice, s}; }
  static SlowdownTarget site(SiteId s) { return {SlowdownScope::kSite, s}; }
  static SlowdownTarget of(Domain d, uint32_t id) {
    return {static_cast<SlowdownScope>(d), id};
  }
  friend bool operator==(const SlowdownTarget&, const SlowdownTarget&) = default;
};

// Handle of an active slowdown. value() fits an event payload word; 0 is never
// a valid handle. Handles are not reused while their slowdown is active, and a
// stale handle (of a removed slowdown) is detected.
class SlowdownId {
 public:
  constexpr SlowdownId() = default;
  static constexpr SlowdownId from_value(uint64_t v) { return SlowdownId(v); }
  constexpr uint64_t value() const { return value_; }
  friend bool operator==(const SlowdownId&, const SlowdownId&) = default;

 private:
  constexpr explicit SlowdownId(uint64_t v) : value_(v) {}
  uint64_t value_ = 0;  // generation << 32 | pool index
};

class SlowdownState {
 public:
  explicit SlowdownState(const Layout& layout);

  // Effective slowdown of slice s (whether it is up or not). REQUIRES: s < slices.
  double slice_slowdown(SliceId s) const;
  // Largest slice_slowdown over the up slices of [first, end); 1.0 if none is
  // up. O(log S). REQUIRES: first <= end <= slices.
  double max_slowdown(SliceId first, SliceId end) const;
  // Sum of (slice_slowdown - 1) over the up slices of [first, end); 0 if none
  // is up. O(log S), or O(log S + k) with a fleet-wide kSlowest factor active
  // (see above). REQUIRES: first <= end <= slices.
  double excess_slowdown(SliceId first, SliceId end) const;

  // Number of active slowdowns.
  size_t active() const { return active_; }
  // True if `id` is a slowdown that is still active.
  bool is_active(SlowdownId id) const;
  // Factor, target and mode of an active slowdown. REQUIRES: is_active(id).
  double factor(SlowdownId id) const;
  SlowdownTarget target(SlowdownId id) const;
  SlowdownMode mode(SlowdownId id) const;
  // Bytes held by the tables (0 until the first slowdown).
  size_t table_bytes() const;
  // Bytes the per-slice and per-site tables take for `layout` once a slowdown is applied
  // (slowdown records themselves not counted), computed without allocating them.
  static double table_bytes_for(const Layout& layout);

 private:
  friend class ClusterState;
  static constexpr uint32_t kNone = UINT32_MAX;
  static constexpr size_t kSetNodeBytes = 48;  // a std::set<SliceId> node, estimated

  // One pooled slowdown record.
  struct Entry {
    double factor = 1.0;
    uint32_t target_id = 0;
    uint32_t list = 0;  // slice or site index of the list it is linked in
    uint32_t prev = kNone;
    uint32_t next = kNone;  // also the free-list link
    uint32_t generation = 1;
    SlowdownScope scope = SlowdownScope::kAll;
    SlowdownMode mode = SlowdownMode::kSlowest;
    bool live = false;
  };
  // Aggregates of one list: product of kScale, max(1, kSlowest).
  struct Aggregate {
    double scale = 1.0;
    double slowest = 1.0;
  };

  // Called by ClusterState. add/update/remove fill changed_slices() with the
  // slices whose slice_slowdown changed (unless the target is kAll).
  // REQUIRES: factor >= 1, finite; target valid for the layout;
  // slice_down_chips has one entry per slice (used on the first call only).
  SlowdownId add(SlowdownTarget target, double factor, SlowdownMode mode,
                 std::span<const uint32_t> slice_down_chips);
  // REQUIRES: is_active(id); factor >= 1, finite.
  void update(SlowdownId id, double factor);
  void remove(SlowdownId id);
  void set_slice_up(SliceId s, bool up);
  std::span<const SliceId> changed_slices() const { return changed_; }

  void allocate(std::span<const uint32_t> slice_down_chips);
  uint32_t checked_index(SlowdownId id) const;
  uint32_t list_of(SlowdownTarget target) const;
  uint32_t& head_of(SlowdownScope scope, uint32_t list);
  Aggregate& aggregate_of(SlowdownScope scope, uint32_t list);
  void link(uint32_t index);
  void unlink(uint32_t index);
  // Recomputes the aggregate of e's list after a change of e from `old_factor`
  // (0 when e was just added, e.factor when it is being removed).
  void refresh(const Entry& e, double old_factor, bool removed);
  Aggregate rescan(uint32_t head) const;
  // Applies a change of e's list to the slices it covers.
  template <class Change>
  void apply_change(const Entry& e, Change change);
  // Product of the kScale factors of s's own list and its site's list.
  double local_scale(SliceId s) const;
  // max(1, kSlowest factors of s's own list and its site's list).
  double local_slowest(SliceId s) const;
  void set_leaf(SliceId s);
  // Recomputes inner node i from its children; false if nothing changed.
  bool pull_up(size_t i);
  double query(const std::vector<double>& tree, SliceId first, SliceId end) const;
  double query_sum(const std::vector<double>& tree, SliceId first, SliceId end) const;
  // Sum over the up slices of [first, end) of scale x max(0, slowest - f),
  // local factors only: the part of the sum a fleet-wide kSlowest f masks not.
  double excess_over(double f, SliceId first, SliceId end) const;

  const Layout& layout_;
  bool allocated_ = false;
  size_t active_ = 0;
  std::vector<Entry> entries_;
  uint32_t free_head_ = kNone;
  std::vector<uint32_t> slice_head_;
  std::vector<Aggregate> slice_agg_;
  std::vector<uint32_t> site_head_;
  std::vector<Aggregate> site_agg_;
  uint32_t fleet_head_ = kNone;
  Aggregate fleet_agg_;
  std::vector<uint8_t> slice_up_;
  // Segment trees over slices (leaves at [S, 2S)), zero for down slices:
  // tree_rate_ holds scale x slowest, tree_scale_ holds scale, both without
  // the fleet factors, which are applied at query time:
  //   max_slowdown = fleet.scale x max(max rate, fleet.slowest x max scale).
  std::vector<double> tree_rate_;
  std::vector<double> tree_scale_;
  // Sum trees over the same leaves (zero for down slices), and the up slices
  // whose local kSlowest factor exceeds 1 (for sum_slowdown under a fleet-wide
  // kSlowest factor).
  std::vector<double> sum_rate_;
  std::vector<double> sum_scale_;
  std::vector<double> sum_up_;  // 1 per up slice
  std::set<SliceId> slowest_slices_;
  std::vector<SliceId> changed_;  // slices changed by the last add/update/remove
  std::vector<double> before_;    // scratch: slice_slowdown before a change
};

}  // namespace goodsim::cluster
