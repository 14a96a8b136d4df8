// Which slices a job trains on, and which healthy slices wait as spares.
//
// A job wants a fixed number of member slices. When a member fails and a spare
// is up, the spare is promoted (after the policy's swap time) and the failed
// slice leaves; once repaired it joins the spare pool. All choices are by the
// lowest slice id, so they are deterministic.
//
// The pool keeps the count of down members up to date from the slice flips
// the owner forwards (on_flip), and the members as contiguous ranges, so
// per-event queries are O(1) or O(ranges), not O(members).
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "sim/cluster/cluster_state.h"

namespace goodsim::models::policy {

class SlicePool {
 public:
  using Range = std::pair<cluster::SliceId, cluster::SliceId>;  // [first, end)

  // Members are slices [0, members); spares are [members, members + spares).
  SlicePool(uint32_t members, uint32_t spares, const cluster::ClusterState& cluster);

  const std::set<cluster::SliceId>& members() const { return members_; }
  const std::set<cluster::SliceId>& spares() const { return spares_; }
  const std::vector<Range>& member_ranges() const { return ranges_; }
  bool is_member(cluster::SliceId s) const { return members_.count(s) != 0; }
  uint32_t wanted() const { return wanted_; }

  // Slice `s` went down (failed) or came up; call for every flipped slice.
  void on_flip(cluster::SliceId s, bool failed);
  // Replaces failed member `failed` by the lowest-numbered up spare, if any:
  // the spare becomes a member and `failed` becomes a spare. Returns the spare.
  std::optional<cluster::SliceId> replace(cluster::SliceId failed,
                                          const cluster::ClusterState& cluster);
  uint32_t down_members() const { return down_members_; }
  uint64_t up_member_chips(uint32_t chips_per_slice) const {
    return uint64_t{wanted_ - down_members_} * chips_per_slice;
  }

 private:
  void rebuild_ranges();

  uint32_t wanted_;
  uint32_t down_members_ = 0;
  std::set<cluster::SliceId> members_;
  std::set<cluster::SliceId> spares_;
  std::vector<Range> ranges_;
};

}  // namespace goodsim::models::policy
