#include "models/policy/slice_pool.h"

namespace goodsim::models::policy {

SlicePool::SlicePool(uint32_t members, uint32_t spares, const cluster::ClusterState& cluster)
    : wanted_(members) {
  for (cluster::SliceId s = 0; s < members; ++s) {
    members_.insert(members_.end(), s);
    down_members_ += cluster.slice_up(s) ? 0 : 1;
  }
  for (cluster::SliceId s = members; s < members + spares; ++s) spares_.insert(spares_.end(), s);
  rebuild_ranges();
}

void SlicePool::on_flip(cluster::SliceId s, bool failed) {
  if (!is_member(s)) return;
  if (failed) {
    ++down_members_;
  } else {
    --down_members_;
  }
}

std::optional<cluster::SliceId> SlicePool::replace(cluster::SliceId failed,
                                                   const cluster::ClusterState& cluster) {
  for (cluster::SliceId s : spares_) {
    if (!cluster.slice_up(s)) continue;
    spares_.erase(s);
    members_.erase(failed);
    members_.insert(s);
    spares_.insert(failed);
    if (!cluster.slice_up(failed)) --down_members_;
    rebuild_ranges();
    return s;
  }
  return std::nullopt;
}

void SlicePool::rebuild_ranges() {
  ranges_.clear();
  for (cluster::SliceId s : members_) {
    if (!ranges_.empty() && ranges_.back().second == s) {
      ++ranges_.back().second;
    } else {
      ranges_.emplace_back(s, s + 1);
    }
  }
}

}  // namespace goodsim::models::policy
