// Analytic progress of a synchronous group between state changes.
//
// While a group runs, it completes one step every `step` of simulated time,
// where `step` changes only at events (a slowdown begins or ends, the group
// resizes). StepClock integrates that piecewise-constant rate without one
// event per step: progress is counted in whole steps plus the fraction of the
// step in flight, which carries over when the step time changes (the step in
// flight finishes at the new pace).
#pragma once

#include <cstdint>
#include <optional>

#include "sim/core/time.h"

namespace goodsim::models::policy {

class StepClock {
 public:
  // Starts running at `now` with step duration `step` (> 0), with no step in
  // flight. REQUIRES: !running().
  void start(core::SimTime now, core::Duration step);
  // Changes the pace at `now`; the step in flight keeps its progress.
  // REQUIRES: running().
  void set_step(core::SimTime now, core::Duration step);
  // Stops at `now`: completed steps are credited; the fraction of the step in
  // flight is returned (in [0, 1)) and discarded. REQUIRES: running().
  double stop(core::SimTime now);

  bool running() const { return running_; }
  core::Duration step() const { return step_; }
  // Whole steps completed since the clock was created, as of `now`.
  uint64_t steps(core::SimTime now) const;
  // When whole step number `n` (counted like steps()) completes at the current
  // pace, if the clock runs and n is not yet reached.
  std::optional<core::SimTime> time_of_step(core::SimTime now, uint64_t n) const;
  // time_of_step() for a step known not to be reached yet (n > steps(now)),
  // without counting the steps again.
  std::optional<core::SimTime> time_of_pending_step(uint64_t n) const;
  // When the latest whole step completed, if it completed after the last
  // start() or set_step() (else nullopt: the step in flight began before).
  // Rounded like time_of_step() and kept in [that start, now].
  std::optional<core::SimTime> last_step_time(core::SimTime now) const;
  // Removes `n` completed steps (a rollback). REQUIRES: n <= steps credited.
  void rollback_to(uint64_t steps_kept);

  // Same state: the same steps at every time from now on.
  bool operator==(const StepClock&) const = default;

 private:
  double progress(core::SimTime now) const;  // steps since since_, with carry

  bool running_ = false;
  core::SimTime since_;
  core::Duration step_ = core::Duration::seconds(1);
  uint64_t credited_ = 0;  // whole steps before since_
  double carry_ = 0;       // fraction of a step done before since_
};

// floor(x) and ceil(x) as integers, exact for the values a clock produces
// (0 <= x below 2^63 for floor, |x| below 2^63 for ceil), without the
// library's rounding and unsigned conversion sequences.
inline uint64_t floor_to_steps(double x) {
  return x < 0x1p63 ? static_cast<uint64_t>(static_cast<int64_t>(x)) : static_cast<uint64_t>(x);
}
inline int64_t ceil_to_int(double x) {
  const auto t = static_cast<int64_t>(x);  // toward zero
  return static_cast<double>(t) < x ? t + 1 : t;
}

// Asked for every learner at every round: inline.
inline double StepClock::progress(core::SimTime now) const {
  return carry_ + static_cast<double>((now - since_).ns()) / static_cast<double>(step_.ns());
}

inline uint64_t StepClock::steps(core::SimTime now) const {
  if (!running_) return credited_;
  return credited_ + floor_to_steps(progress(now));  // progress >= 0
}

inline std::optional<core::SimTime> StepClock::time_of_pending_step(uint64_t n) const {
  if (!running_) return std::nullopt;
  const double remaining = static_cast<double>(n - credited_) - carry_;
  const double ns = remaining * static_cast<double>(step_.ns());
  // A stalled group (a step of years) may never get there: saturate. (Above
  // 2^53 every double is whole: ceil(ns) >= 9.2e18 exactly when ns is.)
  if (ns >= 9.2e18) return core::SimTime::max();
  return since_ + core::Duration::nanos(ceil_to_int(ns));
}

inline std::optional<core::SimTime> StepClock::time_of_step(core::SimTime now, uint64_t n) const {
  if (!running_ || n <= steps(now)) return std::nullopt;
  return time_of_pending_step(n);
}

}  // namespace goodsim::models::policy
