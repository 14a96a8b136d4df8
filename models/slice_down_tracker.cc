#include "models/slice_down_tracker.h"

#include <algorithm>

#include "sim/core/check.h"

namespace goodsim::models {

SliceDownTracker::SliceDownTracker(uint32_t spare_slices, uint32_t down)
    : spares_(spare_slices), down_(down), max_(down) {}

void SliceDownTracker::advance(core::SimTime t) {
  GOODSIM_CHECK(t >= last_);
  const core::Duration dt = t - last_;
  slice_ns_ += static_cast<SliceNanos>(down_) * dt.ns();
  if (down_ > spares_) exhausted_ += dt;
  last_ = t;
}

void SliceDownTracker::on_cluster_change(const cluster::ClusterChange& c) {
  advance(c.time);
  const auto n = static_cast<uint32_t>(c.slices_flipped.size());
  if (c.failed) {
    down_ += n;
  } else {
    GOODSIM_CHECK(n <= down_);
    down_ -= n;
  }
  max_ = std::max(max_, down_);
}

void SliceDownTracker::fill(output::Diagnostics& d, core::SimTime end) const {
  SliceDownTracker at_end = *this;
  at_end.advance(end);
  const double span = end.seconds_f();
  d.slices_down_mean = span > 0 ? static_cast<double>(at_end.slice_ns_) / 1e9 / span : 0.0;
  d.slices_down_max = max_;
  d.spare_slices = spares_;
  d.spares_exhausted_s = at_end.exhausted_.seconds_f();
}

}  // namespace goodsim::models
