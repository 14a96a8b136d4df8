// What decoupled_diloco's syncer merges from each learner
// (docs/decoupled_diloco.md, "One round of fragment p", step 3): per learner
// and fragment, the base it works from (the own step where it last applied a
// merged fragment), its reports merged so far and the merged fragments on
// their way to it; from these, the contribution of its reports not merged
// yet.
//
// A learner applies merged fragment p at its sync points, tau own steps
// after each of its reports of p, taking the newest that reached it by then.
// A contribution covers the tokens and own steps since the base, each step
// counted once: weight w = tokens x tokens / steps, staleness = steps since
// the base (plus the age of a base inherited on a rejoin). Tokens come from
// the learner's history (decoupled_diloco_history.h).
//
// Depends on the schedule and the learners; knows nothing of rounds' timing
// or transfers (the syncer passes arrival times in).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "models/policy/decoupled_diloco_learner.h"
#include "models/policy/fixed_list.h"
#include "models/policy/decoupled_diloco_schedule.h"
#include "models/policy/decoupled_diloco_stats.h"

namespace goodsim::models::policy {

class FragmentMerge {
 public:
  static constexpr size_t kMaxArrivals = 4;  // per learner and fragment
  // A merged fragment on its way to (or waiting at) a learner.
  struct Arrival {
    static constexpr uint64_t kUnknown = UINT64_MAX;
    core::SimTime at;
    mutable uint64_t own = kUnknown;  // the learner's own step at `at`, once known
    // application_point(), once known, and the learner's clock_version() then.
    mutable uint64_t point = 0;
    mutable uint64_t point_clock = kUnknown;
  };
  // What the syncer knows of learner m for fragment p.
  struct Slot {
    int64_t consumed = 0;     // schedule step of the last merged report
    uint64_t base_own = 0;    // own step where it last applied a merged p
    double base_tokens = 0;
    uint64_t base_age = 0;    // steps of age inherited on rejoin
    uint64_t merged_own = 0;  // own step of the last merged report
    double merged_tokens = 0;
    FixedList<Arrival, kMaxArrivals> arrivals;  // not yet applied, by arrival time
  };
  // The merged version a learner works from: own step it applied it at, and
  // the age inherited with it on a rejoin.
  struct Base {
    uint64_t own = 0;
    uint64_t age = 0;
  };

  // `schedule` and `learners` must outlive this object.
  FragmentMerge(const FragmentSchedule& schedule, uint64_t overlap_steps,
                const DecoupledDilocoLearners& learners);

  const Slot& slot(uint32_t p, uint32_t m) const { return slots_[at(p, m)]; }
  // Whether contributions carry tokens and weights (and slots their token
  // marks). Only the event log, the loss model and a round observer read
  // them; without these they stay 0 and every other field is the same.
  void set_count_tokens(bool on) { count_tokens_ = on; }
  bool count_tokens() const { return count_tokens_; }
  const std::vector<Slot>& slots() const { return slots_; }

  // Appends to `out` learner m's progress on fragment p not merged yet, if
  // any, as of `now`; `open_step` is the report step of p's open round (a
  // report at or after it counts toward the quorum). Marks it merged.
  void contribute(uint32_t p, uint32_t m, int64_t open_step, core::SimTime now,
                  std::vector<Contribution>& out);
  // Own step at which learner m applies fragment p arrived as `a`.
  uint64_t application_point(uint32_t p, uint32_t m, const Arrival& a) const;
  // The base of m for p at `now`, counting arrivals applied by then.
  Base current_base(uint32_t p, uint32_t m, core::SimTime now) const;
  // A merged fragment p reaches learner m at `at` (keeps kMaxArrivals, by time).
  void arrive(uint32_t p, uint32_t m, core::SimTime at);
  // Learner m will not receive what is still on its way at `now`.
  void drop_pending(uint32_t m, core::SimTime now);
  // Learner m starts afresh at schedule step `sched`, own step `own` with
  // `tokens`, from a base of age ages[p] for each fragment p.
  void reset(uint32_t m, int64_t sched, uint64_t own, double tokens,
             const std::vector<uint64_t>& ages);
  // The oldest own step that later questions about learner m need, at
  // `now`: no older than H + tau + 1 before now or before an arrival still
  // to apply.
  uint64_t keep_from(uint32_t m, core::SimTime now) const;

  // Fast-forward (decoupled_diloco_syncer_skip.cc): slot b is slot a one
  // period (H steps, dt) on; token fields are functions of the steps.
  bool slot_shifted(const Slot& a, const Slot& b, core::Duration dt) const;
  static bool slot_same(const Slot& a, const Slot& b);
  // Moves learner m's slot of fragment p k periods (`span` in all) on.
  void shift(uint32_t p, uint32_t m, uint64_t k, core::Duration span);

 private:
  size_t at(uint32_t p, uint32_t m) const { return size_t{p} * count_ + m; }
  uint64_t find_application_point(uint32_t p, uint32_t m, const Arrival& a) const;
  void add_piece(Contribution& k, Slot& s, const DecoupledDilocoLearner& l, int64_t c) const;

  const FragmentSchedule* schedule_;
  uint64_t tau_;
  const DecoupledDilocoLearners* learners_;
  uint32_t count_;
  bool count_tokens_ = true;
  std::vector<Slot> slots_;
};

// Kept in the arrival until the learner's clock moves: inline.
inline uint64_t FragmentMerge::application_point(uint32_t p, uint32_t m, const Arrival& a) const {
  if (a.point_clock == (*learners_)[m]->clock_version()) return a.point;
  return find_application_point(p, m, a);
}

// Older fragments still waiting are superseded once this one applies.
inline void FragmentMerge::arrive(uint32_t p, uint32_t m, core::SimTime t) {
  FixedList<Arrival, kMaxArrivals>& arrivals = slots_[at(p, m)].arrivals;
  Arrival a;
  a.at = t;
  arrivals.push_back(a);  // by arrival time: one that got there first stays first
  for (size_t j = arrivals.size() - 1; j > 0 && arrivals[j - 1].at > t; --j) {
    std::swap(arrivals[j - 1], arrivals[j]);
  }
}

}  // namespace goodsim::models::policy
