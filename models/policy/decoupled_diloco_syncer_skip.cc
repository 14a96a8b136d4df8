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
// repeats the last one, shifted, and so on up to that event. Token counts
// (base and merged tokens) are recomputed from the learners' histories at the
// shifted steps, exactly as a stepped round computes them; only the running
// sum tokens_merged adds k copies of a period's sum instead of k x P rounds
// one by one (equal up to floating-point summation order).
#include <algorithm>

#include "models/policy/decoupled_diloco_syncer.h"

namespace goodsim::models::policy {

void DecoupledDilocoSyncer::enable_fast_forward(std::function<bool()> busy,
                                                std::function<void()> woke) {
  ff_on_ = true;
  ff_busy_ = std::move(busy);
  ff_woke_ = std::move(woke);
}

// Nothing asks for single rounds, and rounds repeat (no grace window, whose
// moving averages do not).
bool DecoupledDilocoSyncer::may_skip() const {
  return !stopped_ && !config_.grace && !observer_ && ctx_.loss == nullptr &&
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
  s.fragments = fragments_;
  s.slots = slots_;
  s.stats = stats_;
}

namespace {

using core::Duration;
using core::SimTime;

// y is x one period (dt) later; "never" stays never.
bool later_by(SimTime x, SimTime y, Duration dt) {
  if (x == SimTime::max() || y == SimTime::max()) return x == y;
  return y - x == dt;
}

}  // namespace

bool DecoupledDilocoSyncer::fragment_repeats(const Fragment& a, const Fragment& b,
                                             Duration dt) const {
  return b.round == a.round + 1 && a.phase == Phase::kQuorum && b.phase == Phase::kQuorum &&
         later_by(a.opened, b.opened, dt) && later_by(a.quorum_at, b.quorum_at, dt) &&
         later_by(a.event_time, b.event_time, dt);  // first_ready, grace: grace window only
}

// The slot of a learner that reported, merged and received once in the
// period: every step H on, every time dt on, every broadcast one round on.
// Token fields are functions of the steps (recomputed when shifted).
bool DecoupledDilocoSyncer::slot_repeats(const Slot& a, const Slot& b, Duration dt) const {
  const auto h = config_.inner_steps;
  if (b.consumed != a.consumed + static_cast<int64_t>(h) || b.base_own != a.base_own + h ||
      b.merged_own != a.merged_own + h || b.base_age != a.base_age ||
      !later_by(a.ready, b.ready, dt) || a.arrivals.size() != b.arrivals.size() ||
      a.sent.size() != b.sent.size()) {
    return false;
  }
  for (size_t i = 0; i < a.arrivals.size(); ++i) {
    if (b.arrivals[i].at - a.arrivals[i].at != dt) return false;
  }
  for (size_t i = 0; i < a.sent.size(); ++i) {
    if (b.sent[i].round != a.sent[i].round + 1 || b.sent[i].at - a.sent[i].at != dt) return false;
  }
  return true;
}

namespace {

template <typename Slot>
bool same_slot(const Slot& a, const Slot& b) {
  if (a.consumed != b.consumed || a.base_own != b.base_own || a.base_tokens != b.base_tokens ||
      a.base_age != b.base_age || a.merged_own != b.merged_own ||
      a.merged_tokens != b.merged_tokens || a.ready != b.ready ||
      a.arrivals.size() != b.arrivals.size() || a.sent.size() != b.sent.size()) {
    return false;
  }
  for (size_t i = 0; i < a.arrivals.size(); ++i) {
    if (a.arrivals[i].at != b.arrivals[i].at) return false;
  }
  for (size_t i = 0; i < a.sent.size(); ++i) {
    if (a.sent[i].round != b.sent[i].round || a.sent[i].at != b.sent[i].at) return false;
  }
  return true;
}

}  // namespace

// Whether b is a one period later: no change between, the syncer clock H
// on, every fragment one round on, and each slot either shifted (a learner
// that trains) or untouched (one that is down, parked or rejoining).
bool DecoupledDilocoSyncer::repeats(const Snapshot& a, const Snapshot& b,
                                    std::vector<uint8_t>& moves) const {
  const Duration dt = b.at - a.at;
  if (b.changes != a.changes || dt <= Duration::zero() ||
      b.clock != a.clock + static_cast<int64_t>(config_.inner_steps) ||
      b.stats.clock_jumps != a.stats.clock_jumps || b.stats.rejoins != a.stats.rejoins) {
    return false;
  }
  for (size_t p = 0; p < fragments_.size(); ++p) {
    if (!fragment_repeats(a.fragments[p], b.fragments[p], dt)) return false;
  }
  moves.assign(slots_.size(), 0);
  bool any = false;
  for (size_t i = 0; i < slots_.size(); ++i) {
    if (slot_repeats(a.slots[i], b.slots[i], dt)) {
      moves[i] = 1;
      any = true;
    } else if (!same_slot(a.slots[i], b.slots[i])) {
      return false;
    }
  }
  return any;
}

namespace {

// What a period added to the sums and counts (maxima repeat, so they stay).
SyncerStats period_delta(const SyncerStats& a, const SyncerStats& b) {
  SyncerStats d;
  d.rounds = b.rounds - a.rounds;
  d.quorum_sum = b.quorum_sum - a.quorum_sum;
  d.contributions = b.contributions - a.contributions;
  d.staleness_sum = b.staleness_sum - a.staleness_sum;
  d.grace_wait = b.grace_wait - a.grace_wait;
  d.grace_rounds = b.grace_rounds - a.grace_rounds;
  d.sync_time = b.sync_time - a.sync_time;
  d.late = b.late - a.late;
  d.lateness = b.lateness - a.lateness;
  d.tokens_merged = b.tokens_merged - a.tokens_merged;
  d.learner_contributions.resize(b.learner_contributions.size());
  d.learner_staleness_sum.resize(b.learner_staleness_sum.size());
  for (size_t m = 0; m < b.learner_contributions.size(); ++m) {
    d.learner_contributions[m] = b.learner_contributions[m] - a.learner_contributions[m];
    d.learner_staleness_sum[m] = b.learner_staleness_sum[m] - a.learner_staleness_sum[m];
  }
  return d;
}

Duration times(Duration d, uint64_t k) { return Duration::nanos(d.ns() * static_cast<int64_t>(k)); }

}  // namespace

// Sleeps for the whole periods that end strictly before the next event of
// any other handler and before the horizon: nothing else can happen earlier.
void DecoupledDilocoSyncer::try_sleep(const Snapshot& a, const Snapshot& b) {
  if (ff_busy_ && ff_busy_()) return;
  const Duration dt = b.at - a.at;
  const SimTime limit = std::min(ctx_.sim.next_time_excluding(handler_), ctx_.skip_limit());
  if (limit <= now()) return;
  const auto k = static_cast<uint64_t>(((limit - now()).ns() - 1) / dt.ns());
  if (k == 0) return;
  sleep_.periods = k;
  sleep_.span = dt;
  sleep_.delta = period_delta(a.stats, b.stats);
  for (Fragment& f : fragments_) {
    ctx_.sim.cancel(f.event);  // event_time is kept, to be shifted
    f.event = {};
  }
  ctx_.sim.schedule_at(now() + times(dt, k), core::kBandPolicy, handler_, kWake);
}

void DecoupledDilocoSyncer::add_periods(const SyncerStats& d, uint64_t k) {
  SyncerStats& s = stats_;
  s.rounds += k * d.rounds;
  s.quorum_sum += k * d.quorum_sum;
  s.contributions += k * d.contributions;
  s.staleness_sum += k * d.staleness_sum;
  s.grace_wait += times(d.grace_wait, k);
  s.grace_rounds += k * d.grace_rounds;
  s.sync_time += times(d.sync_time, k);
  s.late += k * d.late;
  s.lateness += times(d.lateness, k);
  s.tokens_merged += static_cast<double>(k) * d.tokens_merged;
  for (size_t m = 0; m < d.learner_contributions.size(); ++m) {
    s.learner_contributions[m] += k * d.learner_contributions[m];
    s.learner_staleness_sum[m] += k * d.learner_staleness_sum[m];
  }
}

void DecoupledDilocoSyncer::shift_slot(Slot& s, const DecoupledDilocoLearner& l,
                                       uint64_t k) const {
  const uint64_t steps = k * config_.inner_steps;
  const Duration span = times(sleep_.span, k);
  s.consumed += static_cast<int64_t>(steps);
  s.base_own += steps;
  s.merged_own += steps;
  s.base_tokens = l.tokens_at(s.base_own);
  s.merged_tokens = l.tokens_at(s.merged_own);
  if (s.ready != kNever) s.ready = s.ready + span;
  for (Arrival& a : s.arrivals) {
    a.at = a.at + span;
    a.own = Arrival::kUnknown;  // recomputed when asked, from the learner's history
    a.point_clock = Arrival::kUnknown;
  }
  for (Sent& x : s.sent) {
    x.round += k;
    x.at = x.at + span;
  }
}

// Now is the merge of fragment 0 k periods after the last one stepped:
// applies the k periods and resumes stepping.
void DecoupledDilocoSyncer::wake() {
  if (stopped_) return;
  const uint64_t k = sleep_.periods;
  const Duration span = times(sleep_.span, k);
  add_periods(sleep_.delta, k);
  clock_ += static_cast<int64_t>(k * config_.inner_steps);
  std::vector<SimTime> next(fragments_.size(), kNever);
  for (uint32_t p = 0; p < fragments_.size(); ++p) {
    Fragment& f = fragments_[p];
    f.round += k;
    f.opened = f.opened + span;
    f.quorum_at = f.quorum_at + span;
    if (f.event_time != kNever) next[p] = f.event_time + span;
    f.event_time = kNever;
    for (uint32_t m = 0; m < count_; ++m) {
      if (sleep_.moves[size_t{p} * count_ + m]) shift_slot(slot(p, m), *learners_[m], k);
    }
  }
  for (uint32_t p = 0; p < fragments_.size(); ++p) schedule_at(p, next[p]);
  take(last_);
  changes_at_first_ = changes_;
  if (ff_woke_) ff_woke_();
}

}  // namespace goodsim::models::policy
