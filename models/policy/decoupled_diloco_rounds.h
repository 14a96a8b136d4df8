// The state of decoupled_diloco's fragment rounds, as the syncer publishes
// it: per fragment its open round and the merge scheduled for it, per
// learner and fragment its report time for the open round and the last
// broadcasts sent to it. A value type (the fast-forward copies it): the
// syncer (decoupled_diloco_syncer.h) writes it, the late-fragment gate
// (decoupled_diloco_gate.h) only reads it, so the gate depends on this file
// and not on the syncer.
//
// Times: SimTime; kNever (SimTime::max()) is "no such time": no scheduled
// merge, a report that cannot come.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "models/policy/fixed_list.h"
#include "sim/core/event_queue.h"
#include "sim/core/time.h"

namespace goodsim::models::policy {

class FragmentRounds {
 public:
  static constexpr core::SimTime kNever = core::SimTime::max();
  // Answer of delivery() and merge_time() for "not known yet" (a plain time,
  // not an optional: both are asked for every learner at every round).
  static constexpr core::SimTime kUnknown = kNever;
  static constexpr size_t kMaxSent = 4;  // broadcasts kept per learner and fragment

  enum class Phase : uint8_t { kQuorum, kGrace };
  struct Fragment {
    uint64_t round = 0;            // the open round
    core::SimTime opened;          // when it opened
    Phase phase = Phase::kQuorum;
    core::SimTime quorum_at;       // when it reached its quorum (grace phase)
    core::Duration grace;          // the window of a round in grace
    core::EventId event;           // the syncer's scheduled event, if any
    core::SimTime event_time = kNever;
  };
  // A merged round broadcast to a learner, and when it reaches it.
  struct Sent {
    uint64_t round = 0;
    core::SimTime at;
  };

  // P fragments, each at its first round opened at `now`, for M learners
  // (no report, nothing sent). `grace`: rounds may wait after their quorum.
  void start(std::span<const uint64_t> first_rounds, uint32_t learners, core::SimTime now,
             bool grace);
  uint32_t fragments() const { return static_cast<uint32_t>(fragments_.size()); }

  Fragment& fragment(uint32_t p) { return fragments_[p]; }
  const Fragment& fragment(uint32_t p) const { return fragments_[p]; }
  // The round of fragment p waiting for its quorum or grace window.
  uint64_t open_round(uint32_t p) const { return fragments_[p].round; }
  // When learner m's report for fragment p's open round was (is) made; kNever
  // if it cannot come.
  core::SimTime ready(uint32_t p, uint32_t m) const { return ready_[at(p, m)]; }
  std::span<const core::SimTime> ready(uint32_t p) const {
    return {ready_.data() + at(p, 0), learners_};
  }
  void set_ready(uint32_t p, uint32_t m, core::SimTime t);
  // The earliest of ready(p): the quorum time when one report makes the
  // quorum. Kept up to date by set_ready() (a scan only when the earliest
  // learner's report moved later), so a change of one learner costs O(1).
  core::SimTime earliest(uint32_t p) const;

  // When round n of fragment p will be merged, as scheduled now: kUnknown if
  // that is not known (another round is open, a grace window may follow the
  // quorum, the quorum cannot be reached yet, or the rounds stopped).
  core::SimTime merge_time(uint32_t p, uint64_t n) const;
  // When the merged fragment p of round n or a later round reaches learner m
  // (the earliest such broadcast kept); kUnknown while round n is not merged;
  // SimTime::zero() when it was merged but not sent to m (it was down,
  // rejoining, parked or partitioned: nothing to wait for).
  core::SimTime delivery(uint32_t p, uint32_t m, uint64_t n) const;

  // Round n of fragment p is on its way to learner m, arriving at `at`
  // (keeps the last kMaxSent).
  void sent(uint32_t p, uint32_t m, uint64_t n, core::SimTime at);
  // Learner m will not receive the broadcasts still on their way at `now`.
  void drop_pending(uint32_t m, core::SimTime now);
  // Learner m starts afresh (a rejoin): nothing sent, no report.
  void reset(uint32_t m);
  // No merge is scheduled any more (the run reached its target).
  void stop() { stopped_ = true; }
  bool stopped() const { return stopped_; }

  // Fast-forward (decoupled_diloco_syncer_skip.cc). Fragment p of `later` is
  // its state in `earlier` one period (dt) on: one round on, every time dt
  // later, in its quorum phase both times.
  bool fragment_shifted(const FragmentRounds& earlier, uint32_t p, core::Duration dt) const;
  // Learner m's part of fragment p is the earlier one dt later (its report
  // time, and every broadcast one round on), or the same.
  bool slot_shifted(const FragmentRounds& earlier, uint32_t p, uint32_t m,
                    core::Duration dt) const;
  bool slot_same(const FragmentRounds& other, uint32_t p, uint32_t m) const;
  // Moves every fragment k rounds and `span` on (not its event), and learner
  // m's part of fragment p where moves[p M + m] is set.
  void shift(uint64_t k, core::Duration span, const std::vector<uint8_t>& moves);

 private:
  size_t at(uint32_t p, uint32_t m) const { return size_t{p} * learners_ + m; }

  uint32_t learners_ = 0;
  bool grace_ = false;
  bool stopped_ = false;
  std::vector<Fragment> fragments_;
  std::vector<core::SimTime> ready_;  // per fragment and learner
  // Per fragment: the earliest of its ready_ row, valid where earliest_ok_.
  mutable std::vector<core::SimTime> earliest_;
  mutable std::vector<uint8_t> earliest_ok_;
  std::vector<FixedList<Sent, kMaxSent>> sent_;  // per fragment and learner, by round
};

// Asked for every learner at every round: inline.
inline void FragmentRounds::set_ready(uint32_t p, uint32_t m, core::SimTime t) {
  core::SimTime& r = ready_[at(p, m)];
  if (r == t) return;
  if (earliest_ok_[p]) {
    if (t <= earliest_[p]) {
      earliest_[p] = t;
    } else if (r == earliest_[p]) {
      earliest_ok_[p] = 0;  // the earliest moved later: scan when asked
    }
  }
  r = t;
}

inline core::SimTime FragmentRounds::earliest(uint32_t p) const {
  if (!earliest_ok_[p]) {
    const std::span<const core::SimTime> row = ready(p);
    earliest_[p] = *std::min_element(row.begin(), row.end());
    earliest_ok_[p] = 1;
  }
  return earliest_[p];
}

// Asked for every learner at every round: inline.
inline void FragmentRounds::sent(uint32_t p, uint32_t m, uint64_t n, core::SimTime t) {
  sent_[at(p, m)].push_back({n, t});
}

inline core::SimTime FragmentRounds::merge_time(uint32_t p, uint64_t n) const {
  const Fragment& f = fragments_[p];
  if (stopped_ || f.round != n) return kUnknown;
  if (f.phase == Phase::kQuorum && grace_) return kUnknown;
  return f.event_time;  // kNever (== kUnknown) while the quorum cannot be reached
}

inline core::SimTime FragmentRounds::delivery(uint32_t p, uint32_t m, uint64_t n) const {
  if (n >= fragments_[p].round) return kUnknown;
  core::SimTime first = kNever;
  for (const Sent& x : sent_[at(p, m)]) {
    if (x.round >= n && x.at < first) first = x.at;
  }
  return first == kNever ? core::SimTime::zero() : first;
}

}  // namespace goodsim::models::policy
