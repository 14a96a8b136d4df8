#include "models/policy/decoupled_diloco_history.h"

#include <algorithm>

#include "sim/core/check.h"

namespace goodsim::models::policy {

void DecoupledDilocoHistory::record(core::SimTime now, const ElasticGroup& group) {
  Segment seg;
  seg.start = now;
  seg.clock = group.clock();
  const bool running = group.mode() == ElasticGroup::Mode::kRunning && seg.clock.running();
  seg.rate = running ? group.active_slices() * tokens_per_slice_step_ : 0.0;
  seg.steps = seg.clock.steps(now);
  seg.units = running ? group.running().productive : 0;
  seg.charged_net = group.productive_charged() - group.lost_work();
  seg.tokens = group.tokens(now) +
               static_cast<double>(seg.steps - seg.clock.steps(now)) * seg.rate;
  if (!segments_.empty()) {
    GOODSIM_CHECK(now >= segments_.back().start);
    // A stop may credit one step fewer than a rounding-robust count of the
    // segment before; keep steps monotone.
    seg.steps = std::max(seg.steps, segments_.back().steps);
    if (segments_.back().start == now) segments_.pop_back();
  }
  segments_.push_back(seg);
}

// Step n completed in the last segment that began with fewer steps; what the
// segment charged up to then, capped by the start of the next segment (a stop
// there booked the step in flight as lost, so a step that rounding counts as
// completed just before it adds nothing) and by the group's kept chip-time now
// (likewise for the step in flight now).
ChipNanos DecoupledDilocoHistory::kept_at_step(uint64_t n, ChipNanos kept_now) const {
  GOODSIM_CHECK(!segments_.empty());
  const size_t i = n == 0 ? 0 : by_step(n - 1);
  const Segment& s = segments_[i];
  const ChipNanos cap = i + 1 < segments_.size() ? segments_[i + 1].charged_net : kept_now;
  ChipNanos kept = s.charged_net;
  if (n > s.steps && s.units > 0) {
    if (const auto t = s.clock.time_of_step(s.start, n)) {
      kept += static_cast<ChipNanos>((*t - s.start).ns()) * static_cast<ChipNanos>(s.units);
    }
  }
  return std::min({kept, cap, kept_now});
}

void DecoupledDilocoHistory::trim(uint64_t keep_step, core::SimTime keep_time) {
  if (segments_.size() < 2) return;
  const size_t by_s = keep_step == 0 ? 0 : by_step(keep_step - 1);
  const size_t first = std::min(by_s, by_time(keep_time));
  segments_.erase(segments_.begin(), segments_.begin() + static_cast<std::ptrdiff_t>(first));
}

}  // namespace goodsim::models::policy
