// Fast-forward of the decoupled_diloco syncer (decoupled_diloco_syncer.h,
// docs/decoupled_diloco.md "Fast-forward").
//
// The proof obligation is that applying k periods at once leaves exactly the
// state k stepped periods would. It rests on two facts checked here, not
// assumed: (1) between two merges of fragment 0 nothing but rounds happened
// (no learner changed: every change of mode, pace, clock, reachability or
// state passes through on_learner_change or on_learner_down), and (2) that
// period's end state is its start state shifted by one period. Every round is
// a function of the syncer's state and of the learners' clocks, which run at
// constant paces until the next event of another handler: so the next period
// repeats the last one, shifted, and so on up to that event. A skip happens
// only without a loss model, event log or round observer, so the token marks
// and sums, which only those read, are not counted (decoupled_diloco_merge.h);
// where they are, shift() recomputes the marks from the learners' histories
// at the shifted steps, as a stepped round computes them.
#include <algorithm>

#include "models/policy/decoupled_diloco_syncer.h"

namespace goodsim::models::policy {

using core::Duration;
using core::SimTime;

// Nothing asks for single rounds, and rounds repeat (no grace window, whose
// moving averages do not).
bool DecoupledDilocoSyncer::may_skip() const {
  return !rounds_.stopped() && !config_.grace && !observer_ && ctx_.loss == nullptr &&
         ctx_.events == nullptr && ctx_.trace == nullptr;
}

// After each merge of fragment 0. A snapshot is taken only after a period
// without learner changes, so a busy cluster pays one counter compare.
void DecoupledDilocoSyncer::after_first_merge() {
  const bool quiet = changes_ == changes_at_first_;
  changes_at_first_ = changes_;
  if (!quiet || !may_skip()) {
    last_.valid = false;
    return;
  }
  take(current_);
  if (last_.valid && repeats(last_, current_, sleep_.moves)) try_sleep(last_, current_);
  std::swap(last_, current_);
}

void DecoupledDilocoSyncer::take(Snapshot& s) const {
  s.valid = true;
  s.at = now();
  s.changes = changes_;
  s.clock = clock_;
  s.rounds = rounds_;
  s.slots = merge_.slots();
  s.stats = stats_;
}

// Whether b is a one period later: no change between, the syncer clock H
// on, every fragment one round on, and each learner's part of each fragment
// either shifted (a learner that trains) or untouched (one that is down,
// parked or rejoining).
bool DecoupledDilocoSyncer::repeats(const Snapshot& a, const Snapshot& b,
                                    std::vector<uint8_t>& moves) const {
  const Duration dt = b.at - a.at;
  if (b.changes != a.changes || dt <= Duration::zero() ||
      b.clock != a.clock + static_cast<int64_t>(config_.inner_steps) ||
      b.stats.clock_jumps != a.stats.clock_jumps || b.stats.rejoins != a.stats.rejoins) {
    return false;
  }
  for (uint32_t p = 0; p < config_.fragments; ++p) {
    if (!b.rounds.fragment_shifted(a.rounds, p, dt)) return false;
  }
  moves.assign(a.slots.size(), 0);
  bool any = false;
  for (uint32_t p = 0; p < config_.fragments; ++p) {
    for (uint32_t m = 0; m < count_; ++m) {
      const size_t i = size_t{p} * count_ + m;
      if (merge_.slot_shifted(a.slots[i], b.slots[i], dt) &&
          b.rounds.slot_shifted(a.rounds, p, m, dt)) {
        moves[i] = 1;
        any = true;
      } else if (!FragmentMerge::slot_same(a.slots[i], b.slots[i]) ||
                 !b.rounds.slot_same(a.rounds, p, m)) {
        return false;
      }
    }
  }
  return any;
}

// Sleeps for the whole periods that end strictly before the next event of
// any other handler and before the horizon: nothing else can happen earlier.
void DecoupledDilocoSyncer::try_sleep(const Snapshot& a, const Snapshot& b) {
  if (gate_.any_held()) return;
  const Duration dt = b.at - a.at;
  const SimTime limit = std::min(ctx_.sim.next_time_excluding(handler_), ctx_.skip_limit());
  if (limit <= now()) return;
  const auto k = static_cast<uint64_t>(((limit - now()).ns() - 1) / dt.ns());
  if (k == 0) return;
  sleep_.periods = k;
  sleep_.span = dt;
  sleep_.delta = stats_delta(a.stats, b.stats);
  for (uint32_t p = 0; p < rounds_.fragments(); ++p) {
    FragmentRounds::Fragment& f = rounds_.fragment(p);
    ctx_.sim.cancel(f.event);  // event_time is kept, to be shifted
    f.event = {};
  }
  ctx_.sim.schedule_at(now() + times(dt, k), core::kBandPolicy, handler_, kWake);
}

// Now is the merge of fragment 0 k periods after the last one stepped:
// applies the k periods and resumes stepping.
void DecoupledDilocoSyncer::wake() {
  if (rounds_.stopped()) return;
  const uint64_t k = sleep_.periods;
  const Duration span = times(sleep_.span, k);
  add_times(stats_, sleep_.delta, k);
  clock_ += static_cast<int64_t>(k * config_.inner_steps);
  std::vector<SimTime> next(config_.fragments, kNever);
  for (uint32_t p = 0; p < config_.fragments; ++p) {
    FragmentRounds::Fragment& f = rounds_.fragment(p);
    if (f.event_time != kNever) next[p] = f.event_time + span;
    f.event_time = kNever;
    for (uint32_t m = 0; m < count_; ++m) {
      if (sleep_.moves[size_t{p} * count_ + m]) merge_.shift(p, m, k, span);
    }
  }
  rounds_.shift(k, span, sleep_.moves);
  for (uint32_t p = 0; p < config_.fragments; ++p) schedule_at(p, next[p]);
  take(last_);
  changes_at_first_ = changes_;
  for (uint32_t m = 0; m < count_; ++m) gate_.update(m);
}

}  // namespace goodsim::models::policy
