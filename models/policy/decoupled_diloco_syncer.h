// The syncer of decoupled_diloco: CPU-only, holds the P fragments of the
// global model and drives one round after another for each fragment. It
// owns the rounds' events and puts the parts together:
//
//   FragmentSchedule   decoupled_diloco_schedule.h   report steps, rounds
//   FragmentRounds     decoupled_diloco_rounds.h     open rounds, report times,
//                                                    merge times, deliveries
//   kth_earliest,      decoupled_diloco_quorum.h     quorum time, grace window
//   GraceWindow
//   FragmentMerge      decoupled_diloco_merge.h      contributions, bases
//   FragmentTransfers  decoupled_diloco_transfers.h  pull and broadcast times
//   tally_round        decoupled_diloco_stats.h      round records, totals
//   DecoupledDilocoGate decoupled_diloco_gate.h      late-fragment holds,
//                                                    told of merges and jumps
//
// Both the syncer and the gate are built from DecoupledDilocoParts
// (decoupled_diloco_parts.h: the run, the configuration, the learners and the
// schedule). Dependencies point one way: the syncer includes all of them; the gate
// reads the schedule, the rounds and the transfers, never the syncer; the
// parts include none of the syncer or the gate.
//
// Round n of fragment p (docs/decoupled_diloco.md):
//  1. Quorum. A learner reports fragment p when its schedule step reaches
//     c = t_p + n' H; a report with n' >= n counts for round n. Each
//     learner's report time is analytic (its group's time_of_step), so the
//     round is ONE event at the K-th earliest report time, rescheduled
//     whenever a learner changes. With late_fragments "wait", K is at most the
//     learners able to report (live and reachable, or reported).
//  2. Grace (optional). The syncer waits up to the grace window for the
//     other live learners' reports, and stops waiting once all reported.
//  3. Merge. Every reachable learner with a report of p not merged before
//     contributes its latest one (FragmentMerge), late reports of earlier
//     rounds included (they ride along but do not count toward the quorum).
//  4. Sync. The contributors' fragments are pulled to the syncer's site and
//     the merged fragment broadcast to every live learner (FragmentTransfers);
//     a quorum member reached after its sync point (tau of its steps after
//     its report) got the fragment late (recorded; with "wait" the gate holds
//     it there).
// After the merge, round n + 1 opens. The syncer clock S is the schedule step
// of the newest round that reached its quorum. At each quorum, a running
// learner whose schedule step is below S - 1 (more than the step in flight
// behind) jumps to S - 1, so a slower learner reports each fragment on the
// syncer's schedule. Report steps jumped over count as reports made at the
// jump (with the progress made so far).
//
// Cost: per round O(M) work and one or two events; per learner change O(P).
//
// Fast-forward (decoupled_diloco_syncer_skip.cc). Between changes the rounds
// repeat: once the state after a merge of fragment 0 equals the state after
// the previous one shifted by one period (H schedule steps, the same time
// dt later, every fragment one round on, the same statistics added), the
// syncer stops scheduling rounds and sleeps until just before the next event
// of anything else (or the horizon), k whole periods, then applies k periods
// at once. Only when nothing asks for single rounds (no loss model, event
// log, trace or round observer) and without a grace window (its moving
// averages do not repeat).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "models/loss/loss_model.h"
#include "models/policy/decoupled_diloco_gate.h"
#include "models/policy/decoupled_diloco_merge.h"
#include "models/policy/decoupled_diloco_parts.h"
#include "models/policy/decoupled_diloco_quorum.h"
#include "models/policy/decoupled_diloco_rounds.h"
#include "models/policy/decoupled_diloco_stats.h"
#include "models/policy/decoupled_diloco_transfers.h"
#include "sim/core/check.h"

namespace goodsim::models::policy {

class DecoupledDilocoSyncer {
 public:
  // Registers its handler. Everything passed in must outlive the syncer; the
  // syncer writes `rounds` and tells `gate` of merges, jumps and moved merges.
  DecoupledDilocoSyncer(const DecoupledDilocoParts& parts, FragmentRounds& rounds,
                        FragmentTransfers& transfers, DecoupledDilocoGate& gate);

  // Opens the first round of every fragment. Call once learners started.
  void start();
  // Learner m changed (mode, pace, state or clock): re-predicts its reports.
  void on_learner_change(uint32_t m);
  // Learner m went down: merged fragments still on their way never reach it.
  void on_learner_down(uint32_t m);
  // Learner m starts training again from state pulled from `peer` (nullopt:
  // from the syncer): its schedule clock, reports and bases restart now.
  void on_rejoin(uint32_t m, std::optional<uint32_t> peer);
  // Resolves learner m's arrived fragments, then trims its history to what
  // later questions need.
  void trim(uint32_t m);
  // Stops scheduling rounds (the run reached its target).
  void stop();

  int64_t clock() const { return clock_; }
  const SyncerStats& stats() const { return stats_; }
  // Round records carry tokens and weights from then on (see start()), so an
  // observer comes before the first merge or rejoin, which write token marks
  // (or with the event log or a loss model, which count them from the start).
  void set_observer(std::function<void(const RoundRecord&)> f) {
    GOODSIM_CHECK(!f || merge_.count_tokens() || (stats_.rounds == 0 && stats_.rejoins == 0));
    observer_ = std::move(f);
    if (observer_) merge_.set_count_tokens(true);
  }
  // Turns the fast-forward on (see above). No skip starts while the gate
  // holds a learner (its release may wait for a round the skip would pass);
  // after a skip the gate re-predicts every learner.
  void enable_fast_forward() { ff_on_ = true; }

 private:
  static constexpr core::SimTime kNever = FragmentRounds::kNever;
  using Phase = FragmentRounds::Phase;

  // The report of learner m that counts for fragment p's open round: its
  // schedule step c (after the last one merged, of the open round or later)
  // and own step, for the key it was derived from.
  struct ReadyStep {
    bool valid = false;
    int64_t consumed = 0;  // key: the slot's last merged report,
    uint64_t round = 0;    // the open round,
    uint64_t version = 0;  // the learner's clock_version()
    int64_t c = 0;
    uint64_t own = 0;
  };

  bool reachable(const DecoupledDilocoLearner& l) const { return transfers_.reachable(l.site()); }
  const ReadyStep& ready_step(uint32_t p, uint32_t m);
  void update_ready(uint32_t p, uint32_t m);
  uint32_t quorum(uint32_t p) const;
  core::SimTime all_live_ready(uint32_t p) const;
  void reschedule(uint32_t p);
  void schedule_at(uint32_t p, core::SimTime t);
  void on_event(uint32_t p);
  void on_quorum(uint32_t p);
  void observe_quorum(uint32_t p);
  void merge(uint32_t p);
  void open_next(uint32_t p);
  // Pull and broadcast: arrivals, deliveries, lateness and rec.sync_time.
  void broadcast(uint32_t p, RoundRecord& rec);
  void broadcast_in_site(uint32_t p, core::Duration t, RoundRecord& rec);
  void record_lateness(uint32_t p);
  void feed_loss(uint32_t p);
  void jump_lagging();
  void record(RoundRecord& rec);
  core::SimTime now() const { return ctx_.sim.now(); }

  // Fast-forward (decoupled_diloco_syncer_skip.cc).
  static constexpr uint64_t kWake = UINT64_MAX;  // payload of the wake event
  struct Snapshot {
    bool valid = false;
    core::SimTime at;
    uint64_t changes = 0;
    int64_t clock = 0;
    FragmentRounds rounds;
    std::vector<FragmentMerge::Slot> slots;
    SyncerStats stats;
  };
  struct Sleep {
    uint64_t periods = 0;
    core::Duration span;         // of one period
    SyncerStats delta;           // sums and counts added per period
    std::vector<uint8_t> moves;  // per slot: shifts by a period (else unchanged)
  };
  bool may_skip() const;
  void after_first_merge();
  void take(Snapshot& s) const;
  bool repeats(const Snapshot& a, const Snapshot& b, std::vector<uint8_t>& moves) const;
  void try_sleep(const Snapshot& a, const Snapshot& b);
  void wake();

  RunContext& ctx_;
  uint32_t trace_track_ = 0;  // merges on the timeline
  const DecoupledDilocoConfig& config_;
  DecoupledDilocoLearners& learners_;
  const FragmentSchedule& schedule_;
  FragmentRounds& rounds_;
  FragmentTransfers& transfers_;
  DecoupledDilocoGate& gate_;
  uint32_t count_ = 0;  // learners_.size(), fixed for the run (kept: asked in every loop)
  core::HandlerId handler_ = 0;
  FragmentMerge merge_;
  GraceWindow grace_;  // fed only with a grace window
  int64_t clock_ = 0;
  SyncerStats stats_;
  std::function<void(const RoundRecord&)> observer_;
  std::vector<ReadyStep> ready_steps_;   // per fragment and learner
  std::vector<core::SimTime> scratch_;  // kth_earliest's work space
  std::vector<Contribution> merged_;    // of the round being merged
  std::vector<uint32_t> receivers_;     // broadcast()'s work space
  std::vector<loss::Contribution> loss_contributions_;  // feed_loss()'s work space
  // Fast-forward.
  bool ff_on_ = false;
  uint64_t changes_ = 0;           // learner changes so far
  uint64_t changes_at_first_ = 0;  // at the last merge of fragment 0
  Snapshot last_, current_;
  Sleep sleep_;
};

}  // namespace goodsim::models::policy
