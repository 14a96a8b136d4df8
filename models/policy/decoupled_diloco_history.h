// The recent past of one decoupled_diloco learner's progress.
//
// The syncer asks after the fact how many steps a learner had completed at a
// time (when a merged fragment reached it), how many tokens it had at a step
// (when it reported a fragment) and when a step completed (to measure
// lateness) - without one event per inner step. Between two changes of the
// learner's ElasticGroup (mode or pace) progress is an analytic function of
// time, so a segment holds a copy of the group's StepClock (running or
// stopped), the steps and tokens at its start, and the tokens per step while
// it runs. The owner records a segment after every change of the group and
// trims segments it will no longer ask about.
//
// Productive chip-time: a segment also holds the group's productive charge net
// of lost partial steps at its start (charged_net) and the productive chip
// units it charges while it runs, so the chip-time charged for a stretch of
// steps is the difference of two kept_at_step() values, exact in the ledger's
// units.
//
// Steps are the group's own inner steps (never rolled back). StepClock's
// counts and step times are exact inverses: a step whose predicted completion
// time has come counts as done, so the counts agree with the times the syncer
// scheduled its events at.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "models/policy/elastic_group.h"
#include "models/policy/step_clock.h"
#include "sim/core/check.h"

namespace goodsim::models::policy {

class DecoupledDilocoHistory {
 public:
  explicit DecoupledDilocoHistory(double tokens_per_slice_step)
      : tokens_per_slice_step_(tokens_per_slice_step) {}

  // Appends the group's state from `now` on (replacing a segment that
  // started at `now`). REQUIRES: now >= the last recorded start.
  void record(core::SimTime now, const ElasticGroup& group);

  // Steps completed at time t. REQUIRES: a segment starts at or before t,
  // and t is not after the run's now.
  uint64_t steps_at(core::SimTime t) const;
  // Tokens the group had once it completed step n (tokens of trimmed history
  // are those of the oldest segment kept). REQUIRES: n <= steps now.
  double tokens_at_step(uint64_t n) const;
  // Productive chip-time the group had charged, net of lost partial steps,
  // once it completed step n: nondecreasing in n, and at most `kept_now` (the
  // group's kept_productive() now). Steps before the recorded history count as
  // completed at the oldest segment. REQUIRES: n <= steps now.
  ChipNanos kept_at_step(uint64_t n, ChipNanos kept_now) const;
  // When step n completed (past) or will complete at the current pace
  // (future, last segment); nullopt if it lies outside the recorded running
  // segments.
  std::optional<core::SimTime> time_of_step(uint64_t n) const;
  // Forgets segments no query about steps >= keep_step or times >= keep_time
  // needs.
  void trim(uint64_t keep_step, core::SimTime keep_time);
  size_t size() const { return segments_.size(); }

 private:
  struct Segment {
    core::SimTime start;
    StepClock clock;         // a copy: predicts the steps of this segment
    uint64_t steps = 0;      // completed at start
    double tokens = 0;       // at start
    double rate = 0;         // tokens per step while the segment runs
    ChipNanos charged_net = 0;  // productive charged minus lost partial steps, at start
    uint64_t units = 0;      // productive chip units charged while it runs
  };
  // Index of the last segment with start <= t (0 if none).
  size_t by_time(core::SimTime t) const;
  // Index of the last segment with steps <= n (0 if none).
  size_t by_step(uint64_t n) const;

  double tokens_per_slice_step_;
  std::vector<Segment> segments_;
};

// Asked for every learner at every round: inline. Most questions are about
// the newest segments, so both search backwards from the newest (a binary
// search's branches cannot be predicted; these exit after a step or two).
inline size_t DecoupledDilocoHistory::by_time(core::SimTime t) const {
  size_t i = segments_.empty() ? 0 : segments_.size() - 1;
  while (i > 0 && segments_[i].start > t) --i;
  return i;
}

inline size_t DecoupledDilocoHistory::by_step(uint64_t n) const {
  size_t i = segments_.empty() ? 0 : segments_.size() - 1;
  while (i > 0 && segments_[i].steps > n) --i;
  return i;
}

inline uint64_t DecoupledDilocoHistory::steps_at(core::SimTime t) const {
  GOODSIM_CHECK(!segments_.empty());
  const Segment& s = segments_[by_time(t)];
  if (s.rate == 0 || t < s.start) return s.steps;
  return std::max(s.steps, s.clock.steps(t));
}

inline double DecoupledDilocoHistory::tokens_at_step(uint64_t n) const {
  GOODSIM_CHECK(!segments_.empty());
  const Segment& s = segments_[by_step(n)];
  if (n < s.steps) return s.tokens;
  return s.tokens + static_cast<double>(n - s.steps) * s.rate;
}

inline std::optional<core::SimTime> DecoupledDilocoHistory::time_of_step(uint64_t n) const {
  if (segments_.empty() || n == 0) return std::nullopt;
  const Segment& s = segments_[by_step(n - 1)];
  if (s.rate == 0 || s.steps >= n) return std::nullopt;
  // A segment runs (rate > 0) and starts with s.steps >= clock.steps(start)
  // completed: n is pending at its start.
  return s.clock.time_of_pending_step(n);
}

}  // namespace goodsim::models::policy
