// decoupled_diloco: M asynchronous learners and a CPU-only syncer
// (arXiv 2604.21428; docs/decoupled_diloco.md).
//
// Learners. Learner k is an ElasticGroup (decoupled_diloco_learner.h) over
// the k-th contiguous near-equal share of the member slices [0, slices -
// spare_slices) (place_learners, "contiguous"; sites are contiguous slice
// ranges, so learners follow sites). Each slice processes
// job.tokens_per_step / member slices tokens per step. Inside a learner a
// lost slice costs a downscale pause, a returning one an upscale pause. Its
// pace comes from the cluster's slowdown state, so heterogeneous hardware
// (hardware_generations) and stragglers make learners run at different
// speeds. Learners never wait for each other. With late_fragments "wait"
// (the default) a learner waits at a sync point for a merged fragment that
// has not reached it (decoupled_diloco_gate.h); with "skip" it never waits.
//
// Syncer. Fragment rounds, quorum K, grace window, token-weighted merge,
// broadcast: see decoupled_diloco_syncer.h.
//
// Failures. A learner below min_slices is down: it stops reporting and its
// unsynced progress - the productive chip-time of its steps since its last
// report of any fragment - becomes lost_work (its tokens are no longer
// counted). When enough slices return it rejoins: it pulls parameters and
// optimizer state (state_bytes) from the live learner it can copy from
// fastest (model_pull_time; from the syncer's site when no learner is live;
// locally when that is unreachable too), plus rejoin_overhead, charged
// reconfigure; slice changes during that pause are absorbed by it. It then
// adopts its peer's schedule clock and contributes from the peer's state
// (the peer's staleness is inherited).
//
// Scavenging. A learner with `schedule` windows is present only inside them:
// outside, its chips are idle (down if failed) and it neither trains nor
// reports. Leaving loses its unsynced progress like a failure; joining pays a
// rejoin.
//
// Accounting: each learner's ElasticGroup split (a parked learner: idle and
// down), plus spare slices (idle or down). Global downtime: no learner
// running. A token target counts tokens computed and kept (not lost).
// Events: per fragment round one (two with grace); per learner its pauses
// and at most one hold and one release per round; never one per inner step.
//
// Loss model (ctx.loss): learners' inner steps (at their mean batch) before
// every event that involves them, each merge with its contributions, a
// receive for every other live learner at the merge, a leave when a learner
// goes down or is parked, a rejoin when it trains again.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "models/parse_context.h"
#include "models/policy/decoupled_diloco_config.h"
#include "models/policy/decoupled_diloco_gate.h"
#include "models/policy/decoupled_diloco_learner.h"
#include "models/policy/decoupled_diloco_rounds.h"
#include "models/policy/decoupled_diloco_schedule.h"
#include "models/policy/decoupled_diloco_syncer.h"
#include "models/policy/decoupled_diloco_transfers.h"
#include "models/policy/policy_base.h"
#include "models/policy/spare_slices.h"

namespace goodsim::models::policy {

class DecoupledDiloco : public PolicyBase {
 public:
  explicit DecoupledDiloco(DecoupledDilocoConfig config);

  void start(RunContext& ctx) override;
  void finish(core::SimTime end) override;
  Progress progress(core::SimTime now) const override;
  uint32_t learner_count() const override { return config_.learners; }
  std::vector<cluster::SliceId> learner_slices(uint32_t k) const override;
  bool slice_allocated(cluster::SliceId s) const override;
  bool slice_running(cluster::SliceId s) const override;
  void on_cluster_change(const cluster::ClusterChange& change) override;
  void on_slowdown_change(const cluster::SlowdownChange& change) override;
  void on_network_change() override;
  void flush_loss(core::SimTime now) override;

  const DecoupledDilocoConfig& config() const { return config_; }
  // Round statistics so far. REQUIRES: start() has run.
  const SyncerStats& syncer_stats() const { return syncer_->stats(); }
  // Stalls at sync points (late_fragments "wait"). REQUIRES: start() has run.
  const DecoupledDilocoGate& gate() const { return *gate_; }
  // Called after every merged round (for a loss model). REQUIRES: start() has
  // run, and no round was merged and no learner rejoined yet unless the run
  // logs events or has a loss model (the records' token sums start with the
  // observer).
  void set_round_observer(std::function<void(const RoundRecord&)> f) {
    syncer_->set_observer(std::move(f));
  }
  // REQUIRES: k < learner_count(); start() has run.
  const DecoupledDilocoLearner& learner(uint32_t k) const { return *learners_.at(k); }
  // The chips' split counted afresh from the spare slices and every learner:
  // what ledger().split() holds, which is kept up to date learner by learner.
  // REQUIRES: start() has run.
  ChipTimeLedger::Split recount_split() const;
  // Results (decoupled_diloco_results.cc).
  std::vector<output::LearnerResult> learner_results(core::SimTime end) const override;
  double wan_bytes(core::SimTime end) const override;
  void describe(output::Diagnostics& d, core::SimTime end) const override;

 private:
  void add_learner_fields(output::ExtraFields& f, uint32_t k) const;
  void create_learners();
  void schedule_windows();
  // What the syncer's and the gate's predictions read of learner m's group.
  struct Pace {
    DecoupledDilocoLearner::State state{};
    ElasticGroup::Mode mode{};
    uint32_t active = 0;
    StepClock clock;
    bool operator==(const Pace&) const = default;
  };
  Pace pace_of(uint32_t m) const;
  void on_group_change(uint32_t m);
  void follow_state(uint32_t m);
  void changed(uint32_t m);
  void trim_history(uint32_t m);
  void book_group_lost(uint32_t m);
  void book_unsynced(uint32_t m);
  void went_down(uint32_t m);
  void leave_loss(uint32_t m);
  void count_pull_bytes(uint32_t m, std::optional<uint32_t> peer);
  void begin_rejoin(uint32_t m);
  core::Duration state_pull(uint32_t m, std::optional<uint32_t>& peer) const;
  void on_window(uint64_t index, bool join);
  void park(uint32_t m);
  void unpark(uint32_t m);
  bool any_running() const;
  double kept_tokens() const;
  // The ledger's split now: the learners' parts plus the spares'. Learner m's
  // part changes only with its group or its state; every such change reaches
  // its group's listener (on_group_change(m)) or changed(m), which recompute
  // that part alone (refresh_split(m)). Integer sums: the order of the
  // updates does not matter.
  void refresh_split();
  void refresh_split(uint32_t m);
  ChipTimeLedger::Split learner_split(uint32_t m) const;
  void publish_split();
  void schedule_target();
  void on_target();
  void log_summary() const;
  core::SimTime now() const { return ctx_->sim.now(); }

  DecoupledDilocoConfig config_;
  RunContext* ctx_ = nullptr;
  DecoupledDilocoLearners learners_;
  // The syncer's parts that the gate reads too (decoupled_diloco_syncer.h).
  FragmentSchedule schedule_;
  FragmentRounds rounds_;
  std::unique_ptr<FragmentTransfers> transfers_;
  std::unique_ptr<DecoupledDilocoGate> gate_;
  std::unique_ptr<DecoupledDilocoSyncer> syncer_;
  core::HandlerId h_window_ = 0, h_target_ = 0;
  core::EventId target_event_;
  std::optional<SpareSlices> spares_;          // set in start()
  std::vector<ChipTimeLedger::Split> splits_;  // per learner, its part of the split
  ChipTimeLedger::Split learners_split_{};     // the sum of splits_
  std::vector<Pace> paces_;          // per learner, at its last group change
  std::vector<size_t> trimmed_to_;   // per learner, its history's length after the last trim
  bool done_ = false;
  double pull_wan_bytes_ = 0;  // state pulls of rejoining learners between sites
};

}  // namespace goodsim::models::policy
