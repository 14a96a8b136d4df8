// The spare slices of a layout (its last spare_slices() slices), which a
// policy keeps idle, and their part of its chip split: down while down, idle
// otherwise. Kept up to date from cluster changes (SliceRangeHealth), so a
// change costs O(slices it covers), not O(spare slices).
// Non-owning: the cluster must outlive this object.
#pragma once

#include <cstdint>

#include "models/policy/chip_time_ledger.h"
#include "models/policy/slice_range_health.h"
#include "sim/cluster/cluster_state.h"

namespace goodsim::models::policy {

class SpareSlices {
 public:
  explicit SpareSlices(const cluster::ClusterState& cluster);

  // Forward every cluster change, before the split is refreshed.
  void on_cluster_change(const cluster::ClusterChange& change) {
    health_.on_cluster_change(change);
  }
  // Adds the spare chips to `split`: down ones to kDown, the rest to kIdle.
  void add_split(ChipTimeLedger::Split& split) const;

 private:
  SliceRangeHealth health_;
  uint64_t chips_;
};

}  // namespace goodsim::models::policy
