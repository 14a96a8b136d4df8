#include "sim/cluster/cluster_state.h"

#include "sim/core/check.h"

namespace goodsim::cluster {

ClusterState::ClusterState(const Layout& layout)
    : layout_(layout),
      chip_depth_(layout.chips(), 0),
      slice_down_chips_(layout.slices(), 0) {}

void ClusterState::fail(Domain d, uint32_t id, core::SimTime now, CauseId cause) {
  GOODSIM_CHECK(cause < cause_names_.size());
  apply(d, id, true, now, cause);
}

void ClusterState::repair(Domain d, uint32_t id, core::SimTime now) {
  apply(d, id, false, now, kUnspecifiedCause);
}

CauseId ClusterState::intern_cause(std::string_view name) {
  for (size_t i = 0; i < cause_names_.size(); ++i) {
    if (cause_names_[i] == name) return static_cast<CauseId>(i);
  }
  GOODSIM_CHECK_MSG(cause_names_.size() < UINT16_MAX, "too many distinct failure causes");
  cause_names_.emplace_back(name);
  return static_cast<CauseId>(cause_names_.size() - 1);
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
  notify(d, id, failing, now, cause);
}

bool ClusterState::add_outage(ChipId c) {
  GOODSIM_CHECK_MSG(chip_depth_[c] < UINT8_MAX, "more than 255 overlapping outages on a chip");
  if (chip_depth_[c]++ != 0) return false;
  ++down_chips_;
  if (slice_down_chips_[layout_.slice_of(c)]++ != 0) return false;
  ++down_slices_;
  return true;
}

bool ClusterState::remove_outage(ChipId c) {
  GOODSIM_CHECK_MSG(chip_depth_[c] > 0, "repair of a chip that is not down");
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

}  // namespace goodsim::cluster
