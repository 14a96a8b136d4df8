#include "models/policy/step_charge.h"

#include "sim/core/check.h"

namespace goodsim::models::policy {

void StepCharge::start(core::SimTime now, uint64_t units) {
  total_ = total(now);
  last_step_ = total_;
  since_ = now;
  units_ = units;
}

void StepCharge::repace(core::SimTime now, const StepClock& clock, uint64_t units) {
  settle(now, clock);
  units_ = units;
}

ChipNanos StepCharge::stop(core::SimTime now, const StepClock& clock) {
  settle(now, clock);
  units_ = 0;
  const ChipNanos lost = total_ - last_step_;
  last_step_ = total_;
  return lost;
}

ChipNanos StepCharge::total(core::SimTime now) const {
  GOODSIM_CHECK(now >= since_ || units_ == 0);
  if (units_ == 0) return total_;
  return total_ + static_cast<ChipNanos>((now - since_).ns()) * static_cast<ChipNanos>(units_);
}

ChipNanos StepCharge::at_last_step(core::SimTime now, const StepClock& clock) const {
  if (const auto t = clock.last_step_time(now)) return total(*t);
  return last_step_;
}

ChipNanos StepCharge::in_flight(core::SimTime now, const StepClock& clock) const {
  if (!clock.running()) return 0;
  return total(now) - at_last_step(now, clock);
}

void StepCharge::settle(core::SimTime now, const StepClock& clock) {
  last_step_ = at_last_step(now, clock);
  total_ = total(now);
  since_ = now;
}

}  // namespace goodsim::models::policy
