// Analytic progress of a synchronous group between state changes.
//
// While a group runs, it completes one step every `step` of simulated time,
// where `step` changes only at events (a slowdown begins or ends, the group
// resizes). StepClock integrates that piecewise-constant rate without one
// event per step. The step in flight carries its progress over when the step
// time changes (it finishes at the new pace): its remaining time is rescaled
// once, rounded up to a whole nanosecond, and every later step completes a
// whole step time after the one before. All in integer nanoseconds: steps(t)
// and time_of_step() are exact inverses, and step times repeat exactly with
// the period (what decoupled_diloco's fast-forward relies on).
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
  // A time time_of_step() gave for that step, in [that start, now].
  std::optional<core::SimTime> last_step_time(core::SimTime now) const;
  // Removes `n` completed steps (a rollback). REQUIRES: n <= steps credited.
  void rollback_to(uint64_t steps_kept);

  // Same state: the same steps at every time from now on.
  bool operator==(const StepClock&) const = default;

 private:
  bool running_ = false;
  core::Duration step_ = core::Duration::seconds(1);
  uint64_t credited_ = 0;  // whole steps completed by the last start or pace change
  core::SimTime next_;     // while running: when step credited_ + 1 completes (later than that)
};

// Asked for every learner at every round: inline.
inline uint64_t StepClock::steps(core::SimTime now) const {
  if (!running_ || now < next_) return credited_;
  return credited_ + 1 + static_cast<uint64_t>((now - next_).ns() / step_.ns());
}

inline std::optional<core::SimTime> StepClock::time_of_pending_step(uint64_t n) const {
  if (!running_) return std::nullopt;
  // A stalled group (a step of years) may never get there: saturate.
  const uint64_t later = n - credited_ - 1;  // whole steps after next_
  const auto room = static_cast<uint64_t>((core::SimTime::max() - next_).ns());
  uint64_t span = 0;
  if (__builtin_mul_overflow(later, static_cast<uint64_t>(step_.ns()), &span) || span > room) {
    return core::SimTime::max();
  }
  return next_ + core::Duration::nanos(static_cast<int64_t>(span));
}

inline std::optional<core::SimTime> StepClock::time_of_step(core::SimTime now, uint64_t n) const {
  if (!running_ || n <= steps(now)) return std::nullopt;
  return time_of_pending_step(n);
}

}  // namespace goodsim::models::policy
