#include "models/policy/step_clock.h"

#include "sim/core/check.h"

namespace goodsim::models::policy {

void StepClock::start(core::SimTime now, core::Duration step) {
  GOODSIM_CHECK(!running_ && step > core::Duration::zero());
  running_ = true;
  step_ = step;
  next_ = now + step;  // saturates: a step of years may never end
}

// The step in flight had `left` of its old step time to go; it has the same
// share of the new one to go, rounded up to a whole nanosecond (so it is
// still pending now).
void StepClock::set_step(core::SimTime now, core::Duration step) {
  GOODSIM_CHECK(running_ && step > core::Duration::zero());
  const uint64_t done = steps(now);
  const core::SimTime pending = *time_of_pending_step(done + 1);
  credited_ = done;
  __extension__ using Wide = unsigned __int128;
  const auto left = static_cast<Wide>((pending - now).ns());  // in (0, old step]
  const auto old_step = static_cast<Wide>(step_.ns());
  const Wide scaled = (left * static_cast<Wide>(step.ns()) + old_step - 1) / old_step;
  const auto room = static_cast<Wide>((core::SimTime::max() - now).ns());
  step_ = step;
  next_ = scaled >= room ? core::SimTime::max()
                         : now + core::Duration::nanos(static_cast<int64_t>(scaled));
}

double StepClock::stop(core::SimTime now) {
  GOODSIM_CHECK(running_);
  const uint64_t done = steps(now);
  const core::SimTime pending = *time_of_pending_step(done + 1);
  credited_ = done;
  running_ = false;
  next_ = core::SimTime();  // stopped clocks with the same steps compare equal
  const auto left = static_cast<double>((pending - now).ns());
  return 1.0 - left / static_cast<double>(step_.ns());
}

std::optional<core::SimTime> StepClock::last_step_time(core::SimTime now) const {
  if (!running_ || now < next_) return std::nullopt;
  const int64_t step = step_.ns();
  return next_ + core::Duration::nanos((now - next_).ns() / step * step);
}

void StepClock::rollback_to(uint64_t steps_kept) {
  GOODSIM_CHECK(!running_ && steps_kept <= credited_);
  credited_ = steps_kept;
}

}  // namespace goodsim::models::policy
