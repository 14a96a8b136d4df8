// Global downtime of one policy: the time during which no training step
// happens anywhere, split into the intervals that count as outages and the
// planned pauses that do not.
//
// Definitions (docs/metrics.md): a stop is a maximal interval with no training
// progress anywhere. It is an outage when any part of it was caused by a
// failure or a recovery (set_training(false)); it is a checkpoint pause when
// the whole interval was a planned checkpoint write (set_checkpointing()).
// Zero-length stops count as neither. downtime() sums every stop (outages and
// checkpoint pauses); an interval still open at the end of the run counts up
// to the end. Counts are final once the interval closes (finish() closes the
// last one).
#pragma once

#include <cstdint>

#include "sim/core/time.h"

namespace goodsim::models::policy {

class OutageTracker {
 public:
  // The state at the start of the run. Call once, before set_training().
  void start(bool training, core::SimTime now);
  // Marks whether any training step can happen from `now` on; false means a
  // failure or a recovery stops it. Idempotent.
  void set_training(bool training, core::SimTime now);
  // No training from `now` on because of a planned checkpoint write. Turns
  // into an outage if a failure or recovery joins the same stop.
  void set_checkpointing(core::SimTime now);
  // Closes an open stop at `end` (the horizon). Call once.
  void finish(core::SimTime end);

  bool training() const { return state_ == State::kTraining; }
  core::Duration downtime() const { return downtime_; }
  // Downtime so far, including the open stop up to `now`.
  core::Duration downtime_until(core::SimTime now) const;
  uint64_t outages() const { return outages_; }
  core::Duration longest() const { return longest_; }
  core::Duration outage_time() const { return outage_time_; }
  uint64_t checkpoint_pauses() const { return checkpoint_pauses_; }
  core::Duration checkpoint_time() const { return checkpoint_time_; }

 private:
  enum class State { kTraining, kCheckpoint, kOutage };
  void enter(State s, core::SimTime now);
  void close(core::SimTime now);

  State state_ = State::kTraining;
  bool unplanned_ = false;  // the open stop includes a failure or a recovery
  core::SimTime since_;
  core::Duration downtime_;
  core::Duration longest_;
  core::Duration outage_time_;
  core::Duration checkpoint_time_;
  uint64_t outages_ = 0;
  uint64_t checkpoint_pauses_ = 0;
};

}  // namespace goodsim::models::policy
