#include "models/policy/outage_tracker.h"

#include <algorithm>

#include "sim/core/check.h"

namespace goodsim::models::policy {

void OutageTracker::start(bool training, core::SimTime now) {
  training_ = training;
  open_ = !training;
  since_ = now;
  outages_ = training ? 0 : 1;
}

void OutageTracker::set_training(bool training, core::SimTime now) {
  if (training == training_) return;
  if (training) {
    GOODSIM_CHECK(open_ && now >= since_);
    const core::Duration d = now - since_;
    downtime_ += d;
    longest_ = std::max(longest_, d);
    open_ = false;
  } else {
    open_ = true;
    since_ = now;
    ++outages_;
  }
  training_ = training;
}

void OutageTracker::finish(core::SimTime end) {
  if (!open_) return;
  GOODSIM_CHECK(end >= since_);
  const core::Duration d = end - since_;
  downtime_ += d;
  longest_ = std::max(longest_, d);
  open_ = false;
}

core::Duration OutageTracker::downtime_until(core::SimTime now) const {
  return open_ ? downtime_ + (now - since_) : downtime_;
}

}  // namespace goodsim::models::policy
