// Which slices a job trains on, and which healthy slices wait as spares.
//
// A job wants a fixed number of member slices. When a member fails and a spare
// is up, the spare is promoted (after the policy's swap time) and the failed
// slice leaves; once repaired it joins the spare pool. All choices are by the
// lowest slice id, so they are deterministic.
//
// Bookkeeping is per flip, never per member: a role per slice, the down
// members and the up spares in their own sorted sets (updated from the slice
// flips the owner forwards through on_flip), the members as contiguous ranges
// edited in place, and the member count of every site. A flip costs O(log S),
// a replacement O(log S + R) for R member ranges; no query walks the members.
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
  // REQUIRES: members + spares <= cluster.layout().slices().
  SlicePool(uint32_t members, uint32_t spares, const cluster::ClusterState& cluster);

  // Members in increasing order. O(members): for reports, not per event.
  std::vector<cluster::SliceId> member_list() const;
  // Members as maximal contiguous ranges, in increasing order.
  const std::vector<Range>& member_ranges() const { return ranges_; }
  bool is_member(cluster::SliceId s) const { return role_[s] == Role::kMember; }
  uint32_t wanted() const { return wanted_; }
  // Members (up or down) of each site, indexed by site id.
  const std::vector<uint32_t>& members_per_site() const { return per_site_; }

  // Slice `s` went down (failed) or came up; call for every flipped slice.
  void on_flip(cluster::SliceId s, bool failed);
  // Replaces failed member `failed` by the lowest-numbered up spare, if any:
  // the spare becomes a member and `failed` becomes a spare. Returns the spare.
  // REQUIRES: is_member(failed).
  std::optional<cluster::SliceId> replace(cluster::SliceId failed,
                                          const cluster::ClusterState& cluster);
  // The lowest-numbered down member, if any.
  std::optional<cluster::SliceId> first_down_member() const;
  // Whether some spare is up (replace() would succeed).
  bool has_up_spare() const { return !up_spares_.empty(); }
  uint32_t down_members() const { return static_cast<uint32_t>(down_members_.size()); }
  uint64_t up_member_chips(uint32_t chips_per_slice) const {
    return uint64_t{wanted_ - down_members()} * chips_per_slice;
  }

 private:
  enum class Role : uint8_t { kNone, kMember, kSpare };

  void add_to_ranges(cluster::SliceId s);
  void remove_from_ranges(cluster::SliceId s);

  const cluster::Layout& layout_;
  uint32_t wanted_;
  std::vector<Role> role_;  // per slice of the cluster
  std::set<cluster::SliceId> down_members_;
  std::set<cluster::SliceId> up_spares_;
  std::vector<Range> ranges_;
  std::vector<uint32_t> per_site_;
};

}  // namespace goodsim::models::policy
