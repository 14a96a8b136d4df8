// ModeTimes: the time a state machine spent in each of its modes and how often
// it entered each, for results that report "time by mode" (summary.json
// "learners", "diagnostics"). Pure bookkeeping: it schedules nothing.
//
// enter(m, now) closes the current mode at `now` and opens m; entering the
// mode already current only counts time. Before the first enter() no mode is
// current and every figure is zero. Times are exact (integer nanoseconds).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "sim/core/check.h"
#include "sim/core/time.h"

namespace goodsim::models::policy {

// The name of mode m of an enum with N modes, from its names in enum order.
template <size_t N, class Mode>
const char* name_in_order(const std::array<const char*, N>& names, Mode m) {
  const auto i = static_cast<size_t>(m);
  GOODSIM_CHECK(i < N);
  return names[i];
}

template <size_t N>
class ModeTimes {
 public:
  // REQUIRES: mode < N; now >= the previous enter().
  void enter(size_t mode, core::SimTime now) {
    GOODSIM_CHECK(mode < N);
    if (started_) {
      GOODSIM_CHECK(now >= since_);
      time_[current_] += now - since_;
    }
    if (!started_ || mode != current_) ++entries_[mode];
    started_ = true;
    current_ = mode;
    since_ = now;
  }
  // Time in `mode` up to `now` (the open interval of the current mode included).
  core::Duration time(size_t mode, core::SimTime now) const {
    core::Duration t = time_.at(mode);
    if (started_ && mode == current_ && now > since_) t += now - since_;
    return t;
  }
  // Times `mode` was entered (the first mode counts once).
  uint64_t entries(size_t mode) const { return entries_.at(mode); }

 private:
  std::array<core::Duration, N> time_{};
  std::array<uint64_t, N> entries_{};
  size_t current_ = 0;
  bool started_ = false;
  core::SimTime since_;
};

}  // namespace goodsim::models::policy
