#include "sim/cluster/cluster_state.h"

#include "sim/core/check.h"

namespace goodsim::cluster {

ClusterState::ClusterState(const Layout& layout)
    : layout_(layout),
      chip_depth_(layout.chips(), 0),
      slice_down_chips_(layout.slices(), 0),
      slowdown_(layout) {}

void ClusterState::fail(Domain d, uint32_t id, core::SimTime now, CauseId cause) {
  GOODSIM_CHECK(cause < cause_names_.size());
  apply(d, id, true, now, cause);
}

void ClusterState::repair(Domain d, uint32_t id, core::SimTime now) {
  apply(d, id, false, now, kUnspecifiedCause);
}

CauseId ClusterState::intern_cause(std::string_view name) {
  if (const auto it = cause_ids_.find(name); it != cause_ids_.end()) return it->second;
  GOODSIM_CHECK_MSG(cause_names_.size() < UINT32_MAX, "too many distinct failure causes");
  const auto id = static_cast<CauseId>(cause_names_.size());
  cause_names_.emplace_back(name);
  cause_ids_.emplace(cause_names_.back(), id);
  return id;
}

void ClusterState::apply(Domain d, uint32_t id, bool failing, core::SimTime now, CauseId cause) {
  GOODSIM_CHECK(id < layout_.count(d));
  flipped_.clear();
  const ChipId first = layout_.first_chip(d, id);
  const uint64_t n = layout_.chips_in(d, id);
  for (uint64_t i = 0; i < n; ++i) {
    const ChipId c = static_cast<ChipId>(first + i);
    if (failing ? add_outage(c) : remove_outage(c)) flipped_.push_back(layout_.slice_of(c));
  }
  for (SliceId s : flipped_) slowdown_.set_slice_up(s, !failing);
  notify(d, id, failing, now, cause);
}

bool ClusterState::add_outage(ChipId c) {
  if (chip_depth_[c] == UINT8_MAX) {  // the byte is saturated: count the rest aside
    ++deep_outages_[c];
    return false;
  }
  if (chip_depth_[c]++ != 0) return false;
  ++down_chips_;
  if (slice_down_chips_[layout_.slice_of(c)]++ != 0) return false;
  ++down_slices_;
  return true;
}

bool ClusterState::remove_outage(ChipId c) {
  GOODSIM_CHECK_MSG(chip_depth_[c] > 0, "repair of a chip that is not down");
  if (chip_depth_[c] == UINT8_MAX) {
    if (const auto it = deep_outages_.find(c); it != deep_outages_.end()) {
      if (--it->second == 0) deep_outages_.erase(it);
      return false;
    }
  }
  if (--chip_depth_[c] != 0) return false;
  --down_chips_;
  if (--slice_down_chips_[layout_.slice_of(c)] != 0) return false;
  --down_slices_;
  return true;
}

void ClusterState::notify(Domain d, uint32_t id, bool failed, core::SimTime now,
                          CauseId cause) {
  const ClusterChange change{now, d, id, failed, cause, flipped_};
  for (ClusterObserver* o : observers_) o->on_cluster_change(change);
}

SlowdownId ClusterState::add_slowdown(SlowdownTarget target, double factor, SlowdownMode mode,
                                      core::SimTime now) {
  const SlowdownId id = slowdown_.add(target, factor, mode, slice_down_chips_);
  notify_slowdown(SlowdownChangeKind::kAdded, id, target, mode, factor, now);
  return id;
}

void ClusterState::update_slowdown(SlowdownId id, double factor, core::SimTime now) {
  slowdown_.update(id, factor);
  notify_slowdown(SlowdownChangeKind::kUpdated, id, slowdown_.target(id), slowdown_.mode(id),
                  factor, now);
}

void ClusterState::remove_slowdown(SlowdownId id, core::SimTime now) {
  const SlowdownTarget target = slowdown_.target(id);
  const SlowdownMode mode = slowdown_.mode(id);
  const double factor = slowdown_.factor(id);
  slowdown_.remove(id);
  notify_slowdown(SlowdownChangeKind::kRemoved, id, target, mode, factor, now);
}

void ClusterState::notify_slowdown(SlowdownChangeKind kind, SlowdownId id, SlowdownTarget target,
                                   SlowdownMode mode, double factor, core::SimTime now) {
  const bool all = target.scope == SlowdownScope::kAll;
  const SlowdownChange change{now, kind, id, target, mode, factor, all,
                              all ? std::span<const SliceId>() : slowdown_.changed_slices()};
  for (ClusterObserver* o : observers_) o->on_slowdown_change(change);
}

}  // namespace goodsim::cluster
