#include "models/policy/step_clock.h"

#include <algorithm>
#include <cmath>

#include "sim/core/check.h"

namespace goodsim::models::policy {

void StepClock::start(core::SimTime now, core::Duration step) {
  GOODSIM_CHECK(!running_ && step > core::Duration::zero());
  running_ = true;
  since_ = now;
  step_ = step;
  carry_ = 0;
}

void StepClock::set_step(core::SimTime now, core::Duration step) {
  GOODSIM_CHECK(running_ && step > core::Duration::zero());
  const double p = progress(now);
  const double whole = std::floor(p);
  credited_ += static_cast<uint64_t>(whole);
  carry_ = p - whole;
  since_ = now;
  step_ = step;
}

double StepClock::stop(core::SimTime now) {
  GOODSIM_CHECK(running_);
  const double p = progress(now);
  const double whole = std::floor(p);
  credited_ += static_cast<uint64_t>(whole);
  running_ = false;
  carry_ = 0;
  return p - whole;
}

std::optional<core::SimTime> StepClock::last_step_time(core::SimTime now) const {
  if (!running_) return std::nullopt;
  const double whole = std::floor(progress(now));
  if (whole < 1) return std::nullopt;
  const double ns = std::ceil((whole - carry_) * static_cast<double>(step_.ns()));
  const auto span = static_cast<double>((now - since_).ns());
  return since_ + core::Duration::nanos(static_cast<int64_t>(std::clamp(ns, 0.0, span)));
}

void StepClock::rollback_to(uint64_t steps_kept) {
  GOODSIM_CHECK(!running_ && steps_kept <= credited_);
  credited_ = steps_kept;
}

}  // namespace goodsim::models::policy
