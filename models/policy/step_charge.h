// The productive chip-time a running synchronous group has charged, tied to
// its step clock, so that what is reclassified later is exactly what was
// charged.
//
// While its StepClock runs, a group charges a whole number of productive chip
// units (its RunningSplit) per nanosecond, constant between pace changes.
// StepCharge integrates that charge in the ledger's units (chip-units x ns,
// integers, so it equals what the ledger integrated from the same split) and
// remembers the charge at the completion of the latest whole step, which may
// lie before the last pace change. Hence:
//   in_flight(now) - the charge of the step in flight (lost when the clock
//                    stops: the owner moves exactly this to lost_work);
//   total(now)     - everything charged since the group began.
// Step completion times are StepClock::last_step_time(), so in_flight() never
// covers a step the clock counts as completed.
//
// Call start() right after the clock starts (no step in flight), repace()
// right before clock.set_step() and stop() right before clock.stop().
#pragma once

#include <cstdint>

#include "models/policy/chip_time_ledger.h"
#include "models/policy/step_clock.h"

namespace goodsim::models::policy {

class StepCharge {
 public:
  // The clock started at `now` with no step in flight; `units` productive chip
  // units are charged from now on.
  void start(core::SimTime now, uint64_t units);
  // The clock is about to change pace at `now`; `units` are charged from now on.
  void repace(core::SimTime now, const StepClock& clock, uint64_t units);
  // The clock is about to stop at `now`; nothing is charged from now on.
  // Returns the charge of the step in flight.
  ChipNanos stop(core::SimTime now, const StepClock& clock);

  // Charged from the beginning up to `now` (not before the last call).
  ChipNanos total(core::SimTime now) const;
  // Charged since the latest whole step of `clock` completed (0 while stopped).
  ChipNanos in_flight(core::SimTime now, const StepClock& clock) const;
  uint64_t units() const { return units_; }

 private:
  // Charge when the latest whole step completed, as of `now`.
  ChipNanos at_last_step(core::SimTime now, const StepClock& clock) const;
  void settle(core::SimTime now, const StepClock& clock);

  core::SimTime since_;
  uint64_t units_ = 0;
  ChipNanos total_ = 0;      // charged up to since_
  ChipNanos last_step_ = 0;  // charged when the latest step before since_ completed
};

}  // namespace goodsim::models::policy
