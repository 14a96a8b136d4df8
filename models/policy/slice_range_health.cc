#include "models/policy/slice_range_health.h"

#include <algorithm>

#include "sim/core/check.h"

namespace goodsim::models::policy {

SliceRangeHealth::SliceRangeHealth(const cluster::ClusterState& cluster, cluster::SliceId first,
                                   cluster::SliceId end)
    : cluster_(cluster), first_(first), end_(end) {
  GOODSIM_CHECK(first <= end && end <= cluster.layout().slices());
  recount();
}

void SliceRangeHealth::recount() {
  slice_down_.assign(end_ - first_, 0);
  up_per_site_.assign(cluster_.layout().sites(), 0);
  down_chips_ = 0;
  up_slices_ = 0;
  for (cluster::SliceId s = first_; s < end_; ++s) {
    const uint32_t down = cluster_.slice_down_chips(s);
    slice_down_[s - first_] = down;
    down_chips_ += down;
    if (down == 0) {
      ++up_slices_;
      ++up_per_site_[cluster_.layout().site_of(s)];
    }
  }
}

bool SliceRangeHealth::on_cluster_change(const cluster::ClusterChange& change) {
  const cluster::Layout::SliceSpan span = cluster_.layout().slice_span(change.domain, change.id);
  const cluster::SliceId s0 = std::max(first_, span.first);
  const cluster::SliceId s1 = std::min(end_, span.end);
  if (s0 >= s1) return false;
  for (cluster::SliceId s = s0; s < s1; ++s) refresh(s);
  return true;
}

void SliceRangeHealth::refresh(cluster::SliceId s) {
  const uint32_t now_down = cluster_.slice_down_chips(s);
  uint32_t& was_down = slice_down_[s - first_];
  down_chips_ = down_chips_ - was_down + now_down;
  if ((was_down == 0) != (now_down == 0)) {
    const int32_t d = now_down == 0 ? 1 : -1;
    up_slices_ += d;
    up_per_site_[cluster_.layout().site_of(s)] += d;
  }
  was_down = now_down;
}

}  // namespace goodsim::models::policy
