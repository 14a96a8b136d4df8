#include "models/policy/decoupled_diloco_merge.h"

#include <algorithm>

namespace goodsim::models::policy {

FragmentMerge::FragmentMerge(const FragmentSchedule& schedule, uint64_t overlap_steps,
                             const DecoupledDilocoLearners& learners)
    : schedule_(&schedule), tau_(overlap_steps), learners_(&learners),
      count_(static_cast<uint32_t>(learners.size())),
      slots_(size_t{schedule.fragments()} * learners.size()) {}

// A fragment that reached the learner at own step s applies at the first
// sync point (tau steps after a report of p) at or after s.
uint64_t FragmentMerge::find_application_point(uint32_t p, uint32_t m, const Arrival& a) const {
  const DecoupledDilocoLearner& l = *(*learners_)[m];
  if (a.own == Arrival::kUnknown) a.own = l.history().steps_at(a.at);
  const auto tau = static_cast<int64_t>(tau_);
  const int64_t report = schedule_->next(p, l.sched_of(a.own) - tau - 1);
  a.point = std::max(a.own, l.own_of(report + tau));
  a.point_clock = l.clock_version();
  return a.point;
}

FragmentMerge::Base FragmentMerge::current_base(uint32_t p, uint32_t m, core::SimTime now) const {
  const Slot& s = slot(p, m);
  Base b{s.base_own, s.base_age};
  const uint64_t own_now = (*learners_)[m]->own_now();
  for (const Arrival& a : s.arrivals) {
    if (a.at > now) break;
    const uint64_t point = application_point(p, m, a);
    if (point > own_now) break;
    if (point > b.own) b = {point, 0};
  }
  return b;
}

// The learner's reports since the last merged one are cumulative from the
// base, except that a merged fragment applied between two of them starts a
// new base: the report before each application carries its own piece (it
// was at the syncer already).
void FragmentMerge::contribute(uint32_t p, uint32_t m, int64_t open_step, core::SimTime now,
                               std::vector<Contribution>& out) {
  const DecoupledDilocoLearner& l = *(*learners_)[m];
  Slot& s = slots_[at(p, m)];
  const int64_t last = schedule_->latest(p, l.sched_now());
  if (last == 0 || last <= s.consumed) return;
  Contribution& k = out.emplace_back();
  k.learner = m;
  k.in_quorum = last >= open_step;
  size_t applied = 0;
  const uint64_t last_own = l.own_of(last);
  for (const Arrival& a : s.arrivals) {
    if (a.at > now) break;
    const uint64_t point = application_point(p, m, a);
    if (point >= last_own) break;
    ++applied;
    if (point <= s.base_own) continue;  // superseded by a newer one applied
    const int64_t before = schedule_->latest(p, l.sched_of(point - 1));
    if (before > s.consumed) add_piece(k, s, l, before);
    s.base_own = point;
    s.base_tokens = count_tokens_ ? l.tokens_at(point) : 0.0;
    s.base_age = 0;
  }
  s.arrivals.erase_front(applied);
  add_piece(k, s, l, last);
  if (k.pieces == 0) out.pop_back();
}

// Adds the progress from the base to report c, and marks c merged. A step
// already merged with an earlier report (no newer fragment was applied since)
// is in the learner's outer gradient again, but its tokens count once.
void FragmentMerge::add_piece(Contribution& k, Slot& s, const DecoupledDilocoLearner& l,
                              int64_t c) const {
  s.consumed = c;
  const uint64_t own = l.own_of(c);
  k.own = own;
  const bool since_base = s.base_own >= s.merged_own;
  const uint64_t from = since_base ? s.base_own : s.merged_own;
  if (own <= from) return;
  k.staleness = std::max(k.staleness, own - s.base_own + s.base_age);
  s.merged_own = own;
  ++k.pieces;
  if (!count_tokens_) return;
  const double at_report = l.tokens_at(own);
  const double tokens = at_report - (since_base ? s.base_tokens : s.merged_tokens);
  k.tokens += tokens;
  k.weight += tokens * tokens / static_cast<double>(own - from);
  s.merged_tokens = at_report;
}

void FragmentMerge::drop_pending(uint32_t m, core::SimTime now) {
  for (uint32_t p = 0; p < schedule_->fragments(); ++p) {
    FixedList<Arrival, kMaxArrivals>& arrivals = slots_[at(p, m)].arrivals;
    while (!arrivals.empty() && arrivals.back().at > now) arrivals.pop_back();
  }
}

void FragmentMerge::reset(uint32_t m, int64_t sched, uint64_t own, double tokens,
                          const std::vector<uint64_t>& ages) {
  for (uint32_t p = 0; p < schedule_->fragments(); ++p) {
    const double t = count_tokens_ ? tokens : 0.0;
    slots_[at(p, m)] = Slot{sched, own, t, ages[p], own, t, {}};
  }
}

// Later questions: tokens at reports and application points no older than H
// before an arrival still to apply, or than H + tau before now.
uint64_t FragmentMerge::keep_from(uint32_t m, core::SimTime now) const {
  const uint64_t own = (*learners_)[m]->own_now();
  const uint64_t back = schedule_->period() + tau_ + 1;
  uint64_t keep = own > back ? own - back : 0;
  for (uint32_t p = 0; p < schedule_->fragments(); ++p) {
    for (const Arrival& a : slot(p, m).arrivals) {
      if (a.at > now) break;
      const uint64_t point = application_point(p, m, a);  // also sets a.own
      const uint64_t from = std::min(point, a.own);
      keep = std::min(keep, from > back ? from - back : 0);
    }
  }
  return keep;
}

bool FragmentMerge::slot_shifted(const Slot& a, const Slot& b, core::Duration dt) const {
  const uint64_t h = schedule_->period();
  if (b.consumed != a.consumed + static_cast<int64_t>(h) || b.base_own != a.base_own + h ||
      b.merged_own != a.merged_own + h || b.base_age != a.base_age ||
      a.arrivals.size() != b.arrivals.size()) {
    return false;
  }
  for (size_t i = 0; i < a.arrivals.size(); ++i) {
    if (b.arrivals[i].at - a.arrivals[i].at != dt) return false;
  }
  return true;
}

bool FragmentMerge::slot_same(const Slot& a, const Slot& b) {
  if (a.consumed != b.consumed || a.base_own != b.base_own || a.base_tokens != b.base_tokens ||
      a.base_age != b.base_age || a.merged_own != b.merged_own ||
      a.merged_tokens != b.merged_tokens || a.arrivals.size() != b.arrivals.size()) {
    return false;
  }
  for (size_t i = 0; i < a.arrivals.size(); ++i) {
    if (a.arrivals[i].at != b.arrivals[i].at) return false;
  }
  return true;
}

void FragmentMerge::shift(uint32_t p, uint32_t m, uint64_t k, core::Duration span) {
  const DecoupledDilocoLearner& l = *(*learners_)[m];
  Slot& s = slots_[at(p, m)];
  const uint64_t steps = k * schedule_->period();
  s.consumed += static_cast<int64_t>(steps);
  s.base_own += steps;
  s.merged_own += steps;
  if (count_tokens_) {
    s.base_tokens = l.tokens_at(s.base_own);
    s.merged_tokens = l.tokens_at(s.merged_own);
  }
  for (Arrival& a : s.arrivals) {
    a.at = a.at + span;
    a.own = Arrival::kUnknown;  // recomputed when asked, from the learner's history
    a.point_clock = Arrival::kUnknown;
  }
}

}  // namespace goodsim::models::policy
