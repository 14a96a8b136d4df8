// The late-fragment rule of decoupled_diloco with late_fragments "wait"
// (docs/decoupled_diloco.md, "Late fragments").
//
// A learner reaches the sync point of its report c of fragment p (round
// n = (c - t_p) / H) when its schedule step reaches c + tau. If no merged
// fragment p of round n or later has reached it by then, it holds there
// (ElasticGroup::hold: its active chips are sync_wait) until one does, then
// goes on (ElasticGroup::release: no pause unless its slices changed while
// held). Never held: a learner the syncer cannot reach (it could not
// receive), and a learner at a round merged while it could not receive it
// (down, rejoining, parked: FragmentRounds::delivery).
//
// Stalls are predicted, not polled: per learner the gate walks its sync
// points from its schedule step on, finds the first whose fragment is not
// there in time (from the step clock and the broadcasts' arrival times) and
// keeps at most one event: the hold at that point, or while held the release
// at the arrival (none while the round is not merged yet: the merge
// re-predicts). A point whose round is not merged yet needs no event while
// the syncer's merge of that round is scheduled before the point: the merge
// re-predicts from that point on, and if the merge moves to the point or
// later (FragmentRounds::merge_time) the hold is scheduled then. So
// a learner whose fragments come in time costs no event at all, and at most
// one hold and one release event per learner and round otherwise.
// With late_fragments "skip" the gate does nothing.
//
// Settled learners. With one site, quorum K = 1 and no grace window, a
// running learner whose tau steps outlast the syncer's delivery bound, and
// that is not ahead of any fragment's open round, gets every fragment in
// time: the round of each of its reports is merged by the time it makes the
// report (its own report completes the quorum) and reaches it within the
// bound, before its sync point tau steps later (proof at settles()). From
// its first report still to come, such a learner is settled: merges predict
// nothing for it until its next change (every change calls update()). Off
// with fast_forward: false, to compare.
//
// Dependencies: the gate reads the schedule, the rounds' published state
// (FragmentRounds) and the transfers' reachability and delivery bound; the
// syncer, which writes the rounds, calls on_merged(), on_rescheduled() and
// update(). The gate never calls the syncer.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "models/policy/decoupled_diloco_parts.h"
#include "models/policy/decoupled_diloco_rounds.h"
#include "models/policy/decoupled_diloco_transfers.h"

namespace goodsim::models::policy {

class DecoupledDilocoGate {
 public:
  // Reads `rounds` (which the syncer writes) and `transfers`; everything
  // passed in must outlive the gate.
  DecoupledDilocoGate(const DecoupledDilocoParts& parts, const FragmentRounds& rounds,
                      const FragmentTransfers& transfers);
  // Registers its handler ("wait" only: "skip" adds none, so the run's other
  // handlers keep their numbers). Call once, before any other call.
  void start();

  // Learner m changed (mode, pace, state or clock): re-predicts its stall,
  // or, while held, its release; ends a stall someone else ended (a park, a
  // pause, going down).
  void update(uint32_t m);
  // Fragment p merged a round: re-predicts the learners that wait for it,
  // from the sync point each waited at.
  void on_merged(uint32_t p);
  // The syncer's scheduled merge of fragment p moved: schedules the holds of
  // the learners waiting for it that it no longer precedes.
  void on_rescheduled(uint32_t p);
  // Cancels every event (the run reached its target).
  void stop();

  // Some learner is held now.
  bool any_held() const;
  // Learner m's time held at sync points up to now, by cause. A hold from h
  // to a, at the sync point of the learner's report r of round n (tau of its
  // steps after r), waits for the way back of the merged fragment: the
  // round's quorum at q (other learners' reports), its merge at g (after the
  // grace window) and the arrival a (pull and broadcast). After r that way
  // is quorum [r, q), grace [q, g) and transfer [g, a), each clipped to start
  // at r; the learner's own steps hide h - r of it, first of the transfer,
  // then of the grace window (what the tau steps of overlap are for), and
  // the rest, a - h, is charged to the causes that outlast them. A hold
  // that ends before round n merges (the learner went down, paused or was
  // parked) has quorum up to the round's quorum and grace after it; so has
  // a hold whose merge the gate did not see (a fast-forwarded period; a hold
  // that begins after such a merge is all transfer).
  struct Waits {
    core::Duration quorum, grace, transfer;
    core::Duration total() const { return quorum + grace + transfer; }
    Waits& operator+=(const Waits& o) {
      quorum += o.quorum;
      grace += o.grace;
      transfer += o.transfer;
      return *this;
    }
  };
  Waits waits(uint32_t m) const;
  // Holds so far, and the time of those that ended.
  uint64_t stalls() const { return stalls_; }
  core::Duration stall_time() const { return stall_time_; }

 private:
  static constexpr uint32_t kNone = UINT32_MAX;
  static constexpr core::SimTime kUnknown = FragmentRounds::kUnknown;
  struct Gate {
    uint32_t fragment = kNone;  // of the predicted or held sync point
    uint64_t round = 0;
    int64_t report = 0;         // schedule step of the report
    uint64_t own = 0;           // own step of the sync point
    core::SimTime reach;        // when the learner gets there
    bool held = false;
    bool settled = false;       // every sync point from the next report on is in time
    core::SimTime held_since;
    core::SimTime reported_at;  // while held: when the learner made report `report`
    bool merge_seen = false;    // while held: the awaited round merged ...
    core::SimTime quorum_at;    // ... with its quorum then
    core::SimTime merged_at;    // ... and its merge then
    core::EventId event;        // valid while the hold (or release) is scheduled
  };

  // Walks learner m's sync points from report step `from` on (all from its
  // schedule step if nullopt).
  void predict(uint32_t m, std::optional<int64_t> from = std::nullopt);
  // Learner l is settled from its next report on (see above).
  bool settles(const DecoupledDilocoLearner& l) const;
  void schedule(uint32_t m, core::SimTime t);
  void disarm(uint32_t m);
  void on_event(uint32_t m);
  void hold(uint32_t m);
  void release(uint32_t m);
  void end_stall(uint32_t m);
  // A merged round: its quorum and merge times.
  struct MergeMark {
    uint64_t round = 0;
    core::SimTime quorum_at;
    core::SimTime merged_at;
  };
  static constexpr size_t kMarks = 4;  // per fragment, like the broadcasts kept
  // Notes the merge of fragment p's latest round (for the holds waiting on it,
  // and those that begin while it is on its way).
  void note_merge(uint32_t p);
  // The first kept merge of fragment p of round `round` or later, or null.
  const MergeMark* merge_of(uint32_t p, uint64_t round) const;
  // The causes of learner m's hold under way, from its start to now.
  Waits hold_causes(uint32_t m) const;
  core::SimTime now() const { return ctx_.sim.now(); }

  RunContext& ctx_;
  const DecoupledDilocoConfig& config_;
  DecoupledDilocoLearners& learners_;
  const FragmentSchedule& schedule_;
  const FragmentRounds& rounds_;
  const FragmentTransfers& transfers_;
  core::HandlerId handler_ = 0;
  std::vector<Gate> gates_;
  std::vector<Waits> waits_;  // per learner: of the holds that ended
  std::vector<std::vector<MergeMark>> merges_;  // per fragment, oldest first
  std::vector<uint32_t> waiting_;  // per fragment: gates whose sync point is of it
  uint64_t stalls_ = 0;
  core::Duration stall_time_;
  bool stopped_ = false;
};

}  // namespace goodsim::models::policy
