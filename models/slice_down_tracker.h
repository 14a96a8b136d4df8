// SliceDownTracker: how many slices were down (any chip of the slice failed)
// over a run, for the diagnostics of summary.json and `goodsim explain`.
//
// Observes the cluster (register it on the run's ClusterState before any
// failure); integrates the count of down slices exactly over simulated time,
// keeps its maximum and the time during which more slices were down than
// the cluster has spares (no fixed-size job over the other slices could then
// have a full set). Schedules nothing, so it never changes a run.
#pragma once

#include <cstdint>

#include "sim/cluster/cluster_state.h"
#include "sim/output/run_result.h"

namespace goodsim::models {

class SliceDownTracker : public cluster::ClusterObserver {
 public:
  // `down` slices are down at t = 0 (normally none).
  SliceDownTracker(uint32_t spare_slices, uint32_t down);
  void on_cluster_change(const cluster::ClusterChange& c) override;
  // Writes the figures up to `end` into `d` (slices_down_*, spares_exhausted_s).
  // REQUIRES: end >= the last change seen.
  void fill(output::Diagnostics& d, core::SimTime end) const;

 private:
  void advance(core::SimTime t);

  uint32_t spares_;
  uint32_t down_;
  uint32_t max_;
  core::SimTime last_;
  __extension__ using SliceNanos = __int128;
  SliceNanos slice_ns_ = 0;              // integral of down slices over time
  core::Duration exhausted_;             // time with down_ > spares_
};

}  // namespace goodsim::models
