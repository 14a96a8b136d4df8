// diloco: synchronous DiLoCo (and streaming DiLoCo) over M elastic learners.
//
// Learners. Each learner is an ElasticGroup (elastic_group.h) over a
// contiguous range of the job's member slices [0, slices - spare_slices):
// near-equal shares (placement "contiguous") or one learner per site
// ("per_site"); see place_learners(). A slice contributes
// job.tokens_per_step / member slices tokens per step. Inside a learner a
// failed slice costs a downscale pause, a returning one an upscale pause.
//
// Barriers. Sync points are the inner steps of SyncSchedule (every H steps,
// or with P fragments one fragment every ~H/P steps on staggered offsets). A
// learner that reaches the open sync point holds (chips: sync_wait) until
// every member learner has reached it. Then the members run the outer
// all-reduce of the fragment's bytes (gradient_bytes / P, or as set by
// transfer_bits and job.layers: fragment_transfer.h) by outer_allreduce_time:
// a ring over the learners' home sites, the site of each learner's first
// slice. Only the part of it that compute cannot hide stalls the members
// (exchange_stall, diloco_plan.h): without job.layers all but tau x
// job.step_time (overlap_steps); with job.layers the layer DAG, where each
// layer's outer gradients leave when its backward ends and gate only that
// layer's forward tau steps after the next one. The members stay held for
// the stall, charged sync_wait at the barrier itself (the same total as
// waiting later, with one event less).
// Then all members are released together. With late_fragments "skip" they
// are released at once whatever the all-reduce takes (the merged fragment is
// applied at a later sync point; counted in late_syncs). The arrival barrier
// stays: it is the all-reduce's rendezvous.
//
// Failures. A learner whose slices all fail (below min_slices) is down: its
// inner progress since the last barrier it took part in is lost (rolled
// back, lost_work) and, once its slices are back and its restart pause is
// over, it pulls the global model of the last completed barrier from the
// nearest learner holding it (model_pull_time of gradient_bytes, charged
// reconfigure) and trains from that step. With drop_failed false a down
// member holds the barrier for everyone. With drop_failed true a down
// learner is dropped from the barrier while some member learner is up; a
// dropped learner that recovers waits (sync_wait) for the open barrier to
// complete, then pulls the new model and rejoins from there. If no member is
// up, a recovered dropped learner is promoted at once (pulling the last
// barrier's model). When no learner holding the model is up or reachable the
// model is reloaded locally at no cost (the outer state is assumed to be
// kept, e.g. in host memory).
//
// Global downtime is the time during which no learner computes and no outer
// all-reduce is under way (the outer step is training; waiting at a barrier
// for a down learner, or for a partitioned WAN, is not). While a WAN hop of
// the outer all-reduce is unreachable (a chaos partition) the members wait
// and the policy re-checks every kPartitionRetry. A learner whose own inner
// step is stalled that way (its slices span a partitioned site) is given no
// arrival event until its pace changes.
//
// A token target is checked when a barrier completes (tokens count once they
// are merged into the global model). Accounting: each learner's ElasticGroup
// split, plus spare slices (idle or down); every learner also keeps its own
// ledger so its rollback is exact. Events: one per learner arrival and one
// per barrier (and per pause of a learner), never one per inner step.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "models/parse_context.h"
#include "models/policy/diloco_plan.h"
#include "models/policy/elastic_group.h"
#include "models/policy/policy_base.h"
#include "models/policy/spare_slices.h"
#include "sim/scenario/reader.h"

namespace goodsim::models::policy {

// Per-run statistics.
struct DilocoStats {
  uint64_t syncs = 0;           // completed barriers (fragment syncs)
  uint64_t outer_steps = 0;     // completed syncs of fragment 0: full outer steps
  core::Duration barrier_wait;  // wall time barriers were open: first arrival to release
  core::Duration comm_wait;     // the non-overlapped outer all-reduce part of it
  uint64_t rollbacks = 0;       // learners that went down (progress rolled back)
  uint64_t drops = 0;           // learners dropped from a barrier (drop_failed)
  uint64_t pulls = 0;           // model pulls by recovering learners
  uint64_t late_syncs = 0;      // late_fragments skip: merges later than tau steps, not waited for
  double wan_bytes = 0;         // outer all-reduce hops and pulls between sites
};

class Diloco : public PolicyBase {
 public:
  static constexpr core::Duration kPartitionRetry = core::Duration::minutes(1);

  explicit Diloco(DilocoConfig config);

  void start(RunContext& ctx) override;
  void finish(core::SimTime end) override;
  Progress progress(core::SimTime now) const override;
  // Before start(): the configured count (0 with per_site, which the layout decides).
  uint32_t learner_count() const override {
    return learners_.empty() ? config_.learners : static_cast<uint32_t>(learners_.size());
  }
  std::vector<cluster::SliceId> learner_slices(uint32_t k) const override;
  bool slice_allocated(cluster::SliceId s) const override;
  bool slice_running(cluster::SliceId s) const override;
  void on_cluster_change(const cluster::ClusterChange& change) override;
  void on_slowdown_change(const cluster::SlowdownChange& change) override;
  std::vector<output::LearnerResult> learner_results(core::SimTime end) const override;
  double wan_bytes(core::SimTime end) const override;

  const DilocoStats& stats() const { return stats_; }
  // Learner k's group and global inner step. REQUIRES: k < learner_count().
  const ElasticGroup& learner(uint32_t k) const { return *learners_.at(k).group; }
  uint64_t learner_step(uint32_t k, core::SimTime now) const;

 private:
  enum class Role : uint8_t { kMember, kDropped };
  struct Learner {
    std::unique_ptr<ElasticGroup> group;
    ChipTimeLedger ledger{0};  // this learner's chips only
    cluster::SiteId home = 0;
    Role role = Role::kMember;
    bool arrived = false;     // held at the open barrier
    bool down = false;        // group last seen in kDown
    bool needs_pull = false;  // holds no current model
    bool pulling = false;     // in the pause that pulls it
    bool dirty = false;       // group changed since last observed
    uint64_t offset = 0;      // global inner step = group steps + offset
    uint64_t base_steps = 0;  // group steps, tokens and productive chip-time
    double base_tokens = 0;   //   when it last held the global model
    ChipNanos base_productive = 0;
    ChipNanos lost_moved = 0;  // group lost_work already booked
    uint32_t logged_slices = 0;  // active slices last logged ("resize" events)
    core::EventId arrival;
  };

  void register_handlers();
  void on_group_change(uint32_t k);
  void drain();
  void observe(uint32_t k);
  void observe_running(uint32_t k);
  void book_lost(uint32_t k);
  void went_down(uint32_t k);
  void rebalance();
  void schedule_arrival(uint32_t k);
  void on_arrival(uint32_t k);
  void try_complete();
  void start_comm();
  void finish_barrier();
  void start_pull(uint32_t k);
  // The fastest pull and the site it comes from (none: no learner holds the model).
  std::pair<core::Duration, std::optional<cluster::SiteId>> pull_time(uint32_t k) const;
  void rebase(uint32_t k);
  void report_merge(uint32_t fragment);
  void move(uint32_t k, Category from, Category to, ChipNanos amount);
  void check_target();
  void refresh_split();
  bool training() const;
  bool up(const Learner& l) const { return l.group->mode() != ElasticGroup::Mode::kDown; }
  core::SimTime now() const { return ctx_->sim.now(); }

  DilocoConfig config_;
  RunContext* ctx_ = nullptr;
  std::vector<Learner> learners_;
  std::optional<SpareSlices> spares_;  // set in start()
  std::optional<SyncSchedule> schedule_;
  std::vector<double> fragment_bytes_;  // per fragment
  std::vector<std::vector<uint32_t>> fragment_layers_;  // per fragment, with job.layers
  uint64_t sync_ = 0;         // number of the open sync point
  uint64_t synced_step_ = 0;  // inner step of the global model (last completed barrier)
  std::optional<core::SimTime> opened_;  // first arrival at the open barrier
  bool comm_ = false;         // the open barrier's outer all-reduce is under way
  bool partitioned_ = false;  // ... but blocked by an unreachable WAN hop
  core::Duration comm_time_, comm_wait_;
  bool busy_ = false;
  bool done_ = false;
  core::HandlerId h_arrive_ = 0, h_comm_done_ = 0, h_retry_ = 0;
  core::EventId comm_event_;
  DilocoStats stats_;
};

}  // namespace goodsim::models::policy
