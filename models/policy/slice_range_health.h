// Health counts of a contiguous range of slices [first, end): down chips, up
// slices, and up slices per site, kept up to date from cluster changes.
//
// The owner forwards every cluster change; an update costs O(slices of the
// range the change covers), never O(slices of the range). A per-slice copy of
// the down-chip counts (4 bytes a slice of the range) tells what changed.
// Non-owning: the cluster must outlive this object.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/cluster/cluster_state.h"

namespace goodsim::models::policy {

class SliceRangeHealth {
 public:
  // REQUIRES: first <= end <= cluster.layout().slices().
  SliceRangeHealth(const cluster::ClusterState& cluster, cluster::SliceId first,
                   cluster::SliceId end);

  // Counts everything again from the cluster's tables: O(slices of the range).
  void recount();
  // Applies one change. Returns whether the change covers a slice of the range.
  bool on_cluster_change(const cluster::ClusterChange& change);

  uint64_t down_chips() const { return down_chips_; }
  uint32_t up_slices() const { return up_slices_; }
  // Up slices of the range in each site, indexed by site id.
  const std::vector<uint32_t>& up_per_site() const { return up_per_site_; }

 private:
  void refresh(cluster::SliceId s);

  const cluster::ClusterState& cluster_;
  cluster::SliceId first_, end_;
  std::vector<uint32_t> slice_down_;  // last seen slice_down_chips, per slice of the range
  std::vector<uint32_t> up_per_site_;
  uint64_t down_chips_ = 0;
  uint32_t up_slices_ = 0;
};

}  // namespace goodsim::models::policy
