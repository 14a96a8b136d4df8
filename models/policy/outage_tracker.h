// Global downtime of one policy: the time during which no training step
// happens anywhere. Tracks the total, the number of outages (maximal down
// intervals) and the longest one; an outage still open at the end of the run
// counts up to the end.
#pragma once

#include <cstdint>

#include "sim/core/time.h"

namespace goodsim::models::policy {

class OutageTracker {
 public:
  // The state at the start of the run. Call once, before set_training().
  void start(bool training, core::SimTime now);
  // Marks whether any training step can happen from `now` on. Idempotent:
  // repeating the current state changes nothing.
  void set_training(bool training, core::SimTime now);
  // Closes an open outage at `end` (the horizon). Call once.
  void finish(core::SimTime end);

  bool training() const { return training_; }
  core::Duration downtime() const { return downtime_; }
  // Downtime so far, including the open outage up to `now`.
  core::Duration downtime_until(core::SimTime now) const;
  uint64_t outages() const { return outages_; }
  core::Duration longest() const { return longest_; }

 private:
  bool training_ = false;
  bool open_ = false;
  core::SimTime since_;
  core::Duration downtime_;
  core::Duration longest_;
  uint64_t outages_ = 0;
};

}  // namespace goodsim::models::policy
