// The syncer of decoupled_diloco: CPU-only, holds the P fragments of the
// global model and runs one round after another for each fragment.
//
// Round n of fragment p (docs/decoupled_diloco.md):
//  1. Quorum. A learner reports fragment p when its schedule step reaches
//     c = t_p + n' H; a report with n' >= n counts for round n. The round
//     waits until K learners have such a report. Each learner's report time
//     is analytic (its group's time_of_step), so the round is ONE event at the
//     K-th earliest report time, rescheduled whenever a learner changes.
//  2. Grace (optional). The syncer waits up to
//       G = gamma x (tau x step - time_to_quorum - sync_time)
//     (each term an exponential moving average of observed values, G >= 0)
//     for the other live learners' reports, and stops waiting as soon as all
//     of them have reported.
//  3. Merge. Every learner with a report of p not merged before contributes
//     its latest one, late reports of earlier rounds included (they ride along
//     but do not count toward the quorum). A contribution covers the tokens
//     and own steps since the learner last applied a merged fragment p (its
//     base), each step counted once: weight w = tokens x tokens / steps,
//     staleness = steps since the base (plus the age of a base inherited from
//     a peer on rejoin).
//  4. Sync. The syncer pulls the fragments (gradient_bytes / P each, or as
//     set by transfer_bits and job.layers: fragment_transfer.h) from the
//     contributors' sites to its own (site 0) and broadcasts the merged
//     fragment to every live learner: flows started together, WAN links
//     shared (concurrent_transfer_times), a flow inside one site at
//     job.intra_site_bps. As in streaming DiLoCo, a learner applies (alpha =
//     0: overwrites with) the newest merged fragment p that has reached it at
//     its own sync points, tau steps after each of its reports of p; a
//     fragment arriving later than that waits for the next one. A quorum
//     member reached after its sync point got the fragment late (recorded;
//     with late_fragments "wait" the learner waits for it there:
//     decoupled_diloco_gate.h).
// After the merge, round n + 1 opens. The syncer clock S is the schedule step
// of the newest round that reached its quorum. Learners follow it: at each
// quorum, a running learner whose
// schedule step is below S - 1 (more than the step in flight behind) jumps
// to S - 1, so a slower learner reports each fragment on the syncer's
// schedule, at most about one of its steps after the fastest - late for a
// K = 1 round, but within reach of the grace window. Report steps jumped
// over count as reports made at the jump (with the progress made so far).
//
// Cost: per round O(M) work and one or two events; per learner change O(P).
//
// Fast-forward (decoupled_diloco_syncer_skip.cc). Between changes the rounds
// repeat: once the state after a merge of fragment 0 equals the state after
// the previous one shifted by one period (H schedule steps, the same time
// dt later, every fragment one round on, the same statistics added), the
// syncer stops scheduling rounds and sleeps until just before the next event
// of anything else (or the horizon), k whole periods, then applies k periods
// at once: rounds, clocks, bases, arrivals and broadcasts shifted by k
// periods, counts and sums added k times. Only when nothing asks for single
// rounds (no loss model, event log, trace or round observer) and without a
// grace window (its moving averages do not repeat).
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "models/loss/loss_model.h"
#include "models/policy/comm_model.h"
#include "models/policy/decoupled_diloco_config.h"
#include "models/policy/decoupled_diloco_learner.h"
#include "models/run_context.h"

namespace goodsim::models::policy {

// What one merged round did: the inputs of a loss model.
struct RoundRecord {
  core::SimTime time;          // merge time
  uint32_t fragment = 0;
  uint64_t round = 0;
  uint32_t quorum = 0;         // merged reports of this round or later
  uint32_t contributors = 0;   // all merged reports, late ones included
  double tokens = 0;           // tokens merged (since each contributor's base)
  double weight = 0;           // sum of w = tokens x tokens / steps
  uint64_t max_staleness = 0;  // inner steps
  double mean_staleness = 0;
  core::Duration grace_wait;   // from quorum to merge
  core::Duration sync_time;    // pull + slowest broadcast
};

// Summary over all merged rounds of a run.
struct SyncerStats {
  uint64_t rounds = 0;
  uint64_t quorum_sum = 0;
  uint32_t quorum_max = 0;
  uint64_t contributions = 0;
  uint64_t staleness_sum = 0;
  uint64_t staleness_max = 0;
  core::Duration grace_wait;  // total
  uint64_t grace_rounds = 0;  // rounds that waited for more reports
  core::Duration sync_time;   // total
  uint64_t late = 0;          // fragments reaching a quorum member after tau steps
  core::Duration lateness;    // total
  core::Duration lateness_max;
  double tokens_merged = 0;
  uint64_t rejoins = 0;
  uint64_t rejoin_staleness_max = 0;  // age of state inherited on rejoin, steps
  uint64_t clock_jumps = 0;

  double mean_quorum() const { return rounds ? double(quorum_sum) / double(rounds) : 0; }
  double mean_contributors() const {
    return rounds ? double(contributions) / double(rounds) : 0;
  }
  double mean_staleness() const {
    return contributions ? double(staleness_sum) / double(contributions) : 0;
  }
  // Per learner: merged contributions and their staleness (sized M by the syncer's start()).
  std::vector<uint64_t> learner_contributions;
  std::vector<uint64_t> learner_staleness_sum;
  // Mean staleness of learner m's merged contributions; nullopt if none was merged.
  std::optional<double> learner_mean_staleness(uint32_t m) const {
    if (m >= learner_contributions.size() || learner_contributions[m] == 0) return std::nullopt;
    return double(learner_staleness_sum[m]) / double(learner_contributions[m]);
  }
};

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

class DecoupledDilocoSyncer {
 public:
  using Learners = std::vector<std::unique_ptr<DecoupledDilocoLearner>>;

  // Registers its handler. `learners` must outlive the syncer.
  DecoupledDilocoSyncer(RunContext& ctx, const DecoupledDilocoConfig& config, Learners& learners);

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

  // Answer of delivery() and merge_time() for "not known yet" (a plain time,
  // not an optional: both are asked for every learner at every round).
  static constexpr core::SimTime kUnknown = core::SimTime::max();
  // With late_fragments "wait": when the merged fragment p of round n or a
  // later round reaches learner m (the earliest such broadcast); kUnknown
  // while round n is not merged; SimTime::zero() when it was merged but not
  // sent to m (it was down, rejoining, parked or partitioned: nothing to wait
  // for).
  core::SimTime delivery(uint32_t p, uint32_t m, uint64_t n) const;
  // When round n of fragment p will be merged, as scheduled now: kUnknown if
  // that is not known (another round is open, a grace window may follow the
  // quorum, or the quorum cannot be reached yet). Moves only with a call of
  // the `rescheduled` listener.
  core::SimTime merge_time(uint32_t p, uint64_t n) const;
  // t_p: fragment p's reports are at schedule steps t_p + n H (the config's
  // offset, tabled: asked for every learner at every round).
  uint64_t offset(uint32_t p) const { return offsets_[p]; }
  // The round of fragment p waiting for its quorum or grace window.
  uint64_t open_round(uint32_t p) const { return fragments_[p].round; }
  // With one site: the longest time from a merge to its arrival at a learner
  // (the largest fragment's pull plus its broadcast, both inside the site).
  // nullopt with several sites (WAN flows share links) or before start().
  std::optional<core::Duration> delivery_bound() const { return delivery_bound_; }
  // Called after each merge of fragment p, after a clock jump of learner m,
  // and when the scheduled merge of fragment p moved.
  void set_listeners(std::function<void(uint32_t p)> merged,
                     std::function<void(uint32_t m)> jumped,
                     std::function<void(uint32_t p)> rescheduled) {
    on_merged_ = std::move(merged);
    on_jumped_ = std::move(jumped);
    on_rescheduled_ = std::move(rescheduled);
  }

  // The syncer can exchange fragments with learner l (no partition between).
  bool reachable(const DecoupledDilocoLearner& l) const;
  int64_t clock() const { return clock_; }
  const SyncerStats& stats() const { return stats_; }
  void set_observer(std::function<void(const RoundRecord&)> f) { observer_ = std::move(f); }
  // Turns the fast-forward on (see above). No skip starts while `busy()`
  // (a learner held at a sync point: its release may wait for a round the
  // skip would pass); `woke` is called after a skip was applied (the gate
  // re-predicts every learner).
  void enable_fast_forward(std::function<bool()> busy, std::function<void()> woke);

 private:
  // No event (equal to kUnknown: merge_time() returns an event time as is).
  static constexpr core::SimTime kNever = kUnknown;
  static constexpr cluster::SiteId kSyncerSite = 0;
  static constexpr size_t kMaxArrivals = 4;  // per learner and fragment
  enum class Phase : uint8_t { kQuorum, kGrace };
  struct Fragment {
    uint64_t round = 0;
    core::SimTime opened;
    Phase phase = Phase::kQuorum;
    core::SimTime quorum_at;
    core::Duration grace;          // window of the round in grace
    core::SimTime first_ready;     // first report of the round (with a grace window)
    core::EventId event;
    core::SimTime event_time = kNever;
  };
  // A merged fragment on its way to (or waiting at) a learner.
  struct Arrival {
    static constexpr uint64_t kUnknown = UINT64_MAX;
    core::SimTime at;
    mutable uint64_t own = kUnknown;  // the learner's own step at `at`, once known
    // application_point(), once known, and the learner's clock_version() then.
    mutable uint64_t point = 0;
    mutable uint64_t point_clock = kUnknown;
  };
  // The merged version a learner works from: own step it applied it at, and
  // the age inherited with it on a rejoin.
  struct Base {
    uint64_t own = 0;
    uint64_t age = 0;
  };
  // A merged round broadcast to a learner, and when it reaches it.
  struct Sent {
    uint64_t round = 0;
    core::SimTime at;
  };
  // What the syncer knows of learner m for fragment p.
  struct Slot {
    int64_t consumed = 0;    // schedule step of the last merged report
    uint64_t base_own = 0;   // own step where it last applied a merged p
    double base_tokens = 0;
    uint64_t base_age = 0;   // steps of age inherited on rejoin
    uint64_t merged_own = 0; // own step of the last merged report
    double merged_tokens = 0;
    std::vector<Arrival> arrivals;  // not yet applied, by arrival time
    core::SimTime ready = kNever;   // when its report for the open round was (is) made
    std::vector<Sent> sent;         // the last kMaxArrivals broadcasts to it, by round
  };
  // One learner's report merged in a round.
  struct Contribution {
    uint32_t learner = 0;
    uint64_t own = 0;  // own step of the (latest) report
    uint32_t pieces = 0;  // reports with progress of their own
    bool in_quorum = false;
    double tokens = 0;
    double weight = 0;
    uint64_t staleness = 0;
  };

  Slot& slot(uint32_t p, uint32_t m) { return slots_[size_t{p} * count_ + m]; }
  const Slot& slot(uint32_t p, uint32_t m) const {
    return slots_[size_t{p} * count_ + m];
  }
  int64_t round_step(uint32_t p, uint64_t n) const {
    return static_cast<int64_t>(offset(p) + n * config_.inner_steps);
  }
  void update_ready(uint32_t p, uint32_t m);
  // K, or with late_fragments "wait" min(K, learners able to report: those
  // live and reachable, and those whose report is in).
  uint32_t quorum(uint32_t p) const;
  core::SimTime kth_ready(uint32_t p) const;
  core::SimTime all_live_ready(uint32_t p) const;
  void reschedule(uint32_t p);
  void schedule_at(uint32_t p, core::SimTime t);
  void on_event(uint32_t p);
  void on_quorum(uint32_t p);
  core::Duration grace_window() const;
  void merge(uint32_t p);
  void contribute(uint32_t p, uint32_t m);
  // Own step at which learner m applies a fragment p that reached it at a.at
  // (kept in the arrival until the learner's clock moves: inline).
  uint64_t application_point(uint32_t p, uint32_t m, const Arrival& a) const;
  uint64_t find_application_point(uint32_t p, uint32_t m, const Arrival& a) const;
  // The base of m for p now, counting arrivals applied by now.
  Base current_base(uint32_t p, uint32_t m) const;
  void add_piece(Contribution& k, Slot& s, const DecoupledDilocoLearner& l, int64_t c);
  // Pull and broadcast: sets the arrivals, lateness and rec.sync_time.
  void broadcast(uint32_t p, RoundRecord& rec);
  // Times of n flows of fragment p started together, into times_: WAN flows
  // (flows_, built only with more than one site) share links; a flow inside
  // a site runs at job.intra_site_bps.
  void transfer_times(uint32_t p, size_t n);
  void record_lateness(uint32_t p);
  void feed_loss(uint32_t p);
  void observe_quorum(uint32_t p);
  void jump_lagging();
  void record(const RoundRecord& rec);
  core::SimTime now() const { return ctx_.sim.now(); }

  // Fast-forward (decoupled_diloco_syncer_skip.cc).
  static constexpr uint64_t kWake = UINT64_MAX;  // payload of the wake event
  struct Snapshot {
    bool valid = false;
    core::SimTime at;
    uint64_t changes = 0;
    int64_t clock = 0;
    std::vector<Fragment> fragments;
    std::vector<Slot> slots;
    SyncerStats stats;
  };
  struct Sleep {
    uint64_t periods = 0;
    core::Duration span;       // of one period
    SyncerStats delta;         // sums and counts added per period
    std::vector<uint8_t> moves;  // per slot: shifts by a period (else unchanged)
  };
  bool may_skip() const;
  void after_first_merge();
  void take(Snapshot& s) const;
  bool repeats(const Snapshot& a, const Snapshot& b, std::vector<uint8_t>& moves) const;
  bool fragment_repeats(const Fragment& a, const Fragment& b, core::Duration dt) const;
  bool slot_repeats(const Slot& a, const Slot& b, core::Duration dt) const;
  void try_sleep(const Snapshot& a, const Snapshot& b);
  void wake();
  void shift_slot(Slot& s, const DecoupledDilocoLearner& l, uint64_t k) const;
  void add_periods(const SyncerStats& d, uint64_t k);

  RunContext& ctx_;
  uint32_t trace_track_ = 0;  // merges on the timeline
  const DecoupledDilocoConfig& config_;
  Learners& learners_;
  uint32_t count_ = 0;  // learners_.size(), fixed for the run (kept: asked in every loop)
  core::HandlerId handler_ = 0;
  std::vector<uint64_t> offsets_;  // t_p per fragment
  std::vector<Fragment> fragments_;
  std::vector<Slot> slots_;
  int64_t clock_ = 0;
  std::vector<double> fragment_bytes_;  // per fragment (FragmentTransfer::bytes)
  std::vector<core::Duration> intra_time_;  // per fragment, inside a site
  std::optional<core::Duration> delivery_bound_;
  MovingAverage step_, to_quorum_, sync_;  // fed only with a grace window
  SyncerStats stats_;
  std::function<void(const RoundRecord&)> observer_;
  std::function<void(uint32_t)> on_merged_, on_jumped_, on_rescheduled_;
  mutable std::vector<core::SimTime> scratch_;  // kth_ready's work space
  std::vector<Contribution> merged_;  // of the round being merged
  std::vector<Flow> flows_;           // broadcast()'s work space
  std::vector<std::optional<core::Duration>> times_;
  std::vector<uint32_t> receivers_;
  std::vector<loss::Contribution> loss_contributions_;  // feed_loss()'s work space
  bool stopped_ = false;
  // Fast-forward.
  bool ff_on_ = false;
  std::function<bool()> ff_busy_;
  std::function<void()> ff_woke_;
  uint64_t changes_ = 0;             // learner changes so far
  uint64_t changes_at_first_ = 0;    // at the last merge of fragment 0
  Snapshot last_, current_;
  Sleep sleep_;
};

// Asked for every learner at every round: inline.
inline bool DecoupledDilocoSyncer::reachable(const DecoupledDilocoLearner& l) const {
  return l.site() == kSyncerSite || ctx_.network.route(l.site(), kSyncerSite).reachable;
}

inline uint64_t DecoupledDilocoSyncer::application_point(uint32_t p, uint32_t m,
                                                         const Arrival& a) const {
  if (a.point_clock == learners_[m]->clock_version()) return a.point;
  return find_application_point(p, m, a);
}

inline core::SimTime DecoupledDilocoSyncer::merge_time(uint32_t p, uint64_t n) const {
  const Fragment& f = fragments_[p];
  if (stopped_ || f.round != n) return kUnknown;
  if (f.phase == Phase::kQuorum && config_.grace) return kUnknown;
  return f.event_time;  // kNever (== kUnknown) while the quorum cannot be reached
}

inline core::SimTime DecoupledDilocoSyncer::delivery(uint32_t p, uint32_t m, uint64_t n) const {
  if (n >= fragments_[p].round) return kUnknown;
  core::SimTime first = kNever;
  for (const Sent& x : slot(p, m).sent) {
    if (x.round >= n) first = std::min(first, x.at);
  }
  return first == kNever ? core::SimTime::zero() : first;
}

}  // namespace goodsim::models::policy
