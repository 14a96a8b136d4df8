#include "models/policy/slice_pool.h"

#include <algorithm>

#include "sim/core/check.h"

namespace goodsim::models::policy {

SlicePool::SlicePool(uint32_t members, uint32_t spares, const cluster::ClusterState& cluster)
    : layout_(cluster.layout()),
      wanted_(members),
      role_(cluster.layout().slices(), Role::kNone),
      per_site_(cluster.layout().sites(), 0) {
  GOODSIM_CHECK(uint64_t{members} + spares <= layout_.slices());
  for (cluster::SliceId s = 0; s < members; ++s) {
    role_[s] = Role::kMember;
    ++per_site_[layout_.site_of(s)];
    if (!cluster.slice_up(s)) down_members_.insert(down_members_.end(), s);
  }
  for (cluster::SliceId s = members; s < members + spares; ++s) {
    role_[s] = Role::kSpare;
    if (cluster.slice_up(s)) up_spares_.insert(up_spares_.end(), s);
  }
  if (members > 0) ranges_.emplace_back(0, members);
}

std::vector<cluster::SliceId> SlicePool::member_list() const {
  std::vector<cluster::SliceId> out;
  out.reserve(wanted_);
  for (const auto& [first, end] : ranges_) {
    for (cluster::SliceId s = first; s < end; ++s) out.push_back(s);
  }
  return out;
}

void SlicePool::on_flip(cluster::SliceId s, bool failed) {
  std::set<cluster::SliceId>* tracked = role_[s] == Role::kMember ? &down_members_
                                        : role_[s] == Role::kSpare ? &up_spares_
                                                                   : nullptr;
  if (tracked == nullptr) return;
  // Members are tracked while down, spares while up.
  if (failed == (role_[s] == Role::kMember)) {
    tracked->insert(s);
  } else {
    tracked->erase(s);
  }
}

std::optional<cluster::SliceId> SlicePool::replace(cluster::SliceId failed,
                                                   const cluster::ClusterState& cluster) {
  GOODSIM_CHECK(is_member(failed));
  if (up_spares_.empty()) return std::nullopt;
  const cluster::SliceId s = *up_spares_.begin();
  up_spares_.erase(up_spares_.begin());
  role_[s] = Role::kMember;
  ++per_site_[layout_.site_of(s)];
  add_to_ranges(s);
  role_[failed] = Role::kSpare;
  --per_site_[layout_.site_of(failed)];
  remove_from_ranges(failed);
  down_members_.erase(failed);
  if (cluster.slice_up(failed)) up_spares_.insert(failed);
  return s;
}

std::optional<cluster::SliceId> SlicePool::first_down_member() const {
  if (down_members_.empty()) return std::nullopt;
  return *down_members_.begin();
}

// Ranges are disjoint, sorted and maximal (no two touch).
void SlicePool::add_to_ranges(cluster::SliceId s) {
  auto it = std::upper_bound(ranges_.begin(), ranges_.end(), s,
                             [](cluster::SliceId v, const Range& r) { return v < r.first; });
  const bool joins_prev = it != ranges_.begin() && std::prev(it)->second == s;
  const bool joins_next = it != ranges_.end() && it->first == s + 1;
  if (joins_prev && joins_next) {
    std::prev(it)->second = it->second;
    ranges_.erase(it);
  } else if (joins_prev) {
    std::prev(it)->second = s + 1;
  } else if (joins_next) {
    it->first = s;
  } else {
    ranges_.insert(it, Range{s, s + 1});
  }
}

void SlicePool::remove_from_ranges(cluster::SliceId s) {
  auto it = std::upper_bound(ranges_.begin(), ranges_.end(), s,
                             [](cluster::SliceId v, const Range& r) { return v < r.first; });
  GOODSIM_CHECK(it != ranges_.begin());
  --it;
  GOODSIM_CHECK(s < it->second);
  if (it->first == s && it->second == s + 1) {
    ranges_.erase(it);
  } else if (it->first == s) {
    it->first = s + 1;
  } else if (it->second == s + 1) {
    it->second = s;
  } else {
    const cluster::SliceId end = it->second;
    it->second = s;
    ranges_.insert(std::next(it), Range{s + 1, end});
  }
}

}  // namespace goodsim::models::policy
