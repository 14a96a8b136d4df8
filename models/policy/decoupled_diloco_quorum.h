// The quorum and the grace window of decoupled_diloco's rounds
// (docs/decoupled_diloco.md, "One round of fragment p"): when a round has enough
// reports, and how long it then waits for the others. Pure arithmetic over
// report times; the syncer (decoupled_diloco_syncer.h) keeps the times and
// schedules the events.
//
// A round merges at the K-th earliest report time of its learners (a report
// that cannot come is SimTime::max()). With a grace window it then waits up
// to
//   G = gamma x (tau x step - time_to_quorum - sync_time),  G >= 0,
// each term an exponential moving average of observed values, for the other
// live learners' reports.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "sim/core/time.h"

namespace goodsim::models::policy {

// The k-th earliest of `ready` (k = 1: the earliest). `scratch` is work
// space. REQUIRES: 1 <= k <= ready.size().
core::SimTime kth_earliest(std::span<const core::SimTime> ready, uint32_t k,
                           std::vector<core::SimTime>& scratch);

// An exponential moving average, primed by its first observation.
class MovingAverage {
 public:
  void add(double x, double weight) {
    value_ = primed_ ? value_ + weight * (x - value_) : x;
    primed_ = true;
  }
  double value() const { return value_; }
  bool primed() const { return primed_; }

 private:
  double value_ = 0;
  bool primed_ = false;
};

// The adaptive grace window: moving averages of the learners' step time, the
// time from a round's first report to its quorum, and the sync time.
class GraceWindow {
 public:
  // REQUIRES: 0 <= gamma < 1, 0 < ema_weight <= 1.
  GraceWindow(uint64_t overlap_steps, double gamma, double ema_weight)
      : tau_(static_cast<double>(overlap_steps)), gamma_(gamma), weight_(ema_weight) {}

  // A round reached its quorum `to_quorum` seconds after its first report
  // (negative: no report observed), with `paced` reporting learners running
  // at `pace_sum` seconds per step in total (0: none).
  void observe_quorum(double to_quorum, double pace_sum, uint32_t paced);
  // A merge's pull plus slowest broadcast.
  void observe_sync(core::Duration sync) { sync_.add(sync.seconds_f(), weight_); }
  // The window now (zero until the slack is positive).
  core::Duration window() const;

 private:
  double tau_, gamma_, weight_;
  MovingAverage step_, to_quorum_, sync_;
};

}  // namespace goodsim::models::policy
