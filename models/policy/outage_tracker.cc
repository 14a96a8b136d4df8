#include "models/policy/outage_tracker.h"

#include <algorithm>

#include "sim/core/check.h"

namespace goodsim::models::policy {

void OutageTracker::start(bool training, core::SimTime now) {
  state_ = State::kTraining;
  since_ = now;
  set_training(training, now);
}

void OutageTracker::set_training(bool training, core::SimTime now) {
  enter(training ? State::kTraining : State::kOutage, now);
}

void OutageTracker::set_checkpointing(core::SimTime now) { enter(State::kCheckpoint, now); }

void OutageTracker::enter(State s, core::SimTime now) {
  if (s == state_) return;
  if (state_ == State::kTraining) {
    since_ = now;
    unplanned_ = false;
  }
  unplanned_ |= s == State::kOutage;
  if (s == State::kTraining) close(now);
  state_ = s;
}

void OutageTracker::close(core::SimTime now) {
  GOODSIM_CHECK(now >= since_);
  const core::Duration d = now - since_;
  if (d == core::Duration::zero()) return;  // an instant, not a stop
  downtime_ += d;
  if (unplanned_) {
    ++outages_;
    outage_time_ += d;
    longest_ = std::max(longest_, d);
  } else {
    ++checkpoint_pauses_;
    checkpoint_time_ += d;
  }
}

void OutageTracker::finish(core::SimTime end) {
  if (state_ == State::kTraining) return;
  close(end);
  state_ = State::kTraining;
}

core::Duration OutageTracker::downtime_until(core::SimTime now) const {
  return state_ != State::kTraining ? downtime_ + (now - since_) : downtime_;
}

}  // namespace goodsim::models::policy
