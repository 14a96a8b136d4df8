// Counts the WAN bytes of a synchronous group's steps in closed form.
//
// A group that sends the same WAN bytes every step (a data-parallel
// all-reduce across sites, comm_model.h dp_step_wan_bytes) runs in segments
// of constant pace on a StepClock (step_clock.h). The owner calls open() after
// every start, pace change or rollback of its clock, with the clock's step
// count then and the bytes per step (0 while stopped), and close() before
// every stop, pace change or rollback: each completed step of a segment
// counts its bytes once, with no event per step. A step in flight when the
// clock stops is not counted (its all-reduce did not finish); a step
// completed and then rolled back is (its bytes crossed the WAN).
#pragma once

#include <cstdint>

namespace goodsim::models::policy {

class WanMeter {
 public:
  // Starts a segment at `steps` completed steps, each later step sending
  // `per_step` bytes.
  void open(uint64_t steps, double per_step) {
    from_ = steps;
    per_step_ = per_step;
  }
  // Ends the segment at `steps` completed steps. REQUIRES: steps >= the open()'s.
  void close(uint64_t steps) {
    done_ += per_step_ * static_cast<double>(steps - from_);
    from_ = steps;
    per_step_ = 0;
  }
  // Bytes sent up to `steps` completed steps of the open segment.
  double bytes(uint64_t steps) const {
    if (per_step_ == 0) return done_;  // closed (a rollback may have lowered the count)
    return done_ + per_step_ * static_cast<double>(steps - from_);
  }

 private:
  double done_ = 0;
  uint64_t from_ = 0;
  double per_step_ = 0;
};

}  // namespace goodsim::models::policy
