// data_parallel: one synchronous SPMD job over a fixed number of slices.
//
// Members are slices [0, slices - spare_slices); the rest are spares. Any
// member going down stops the whole job: the work since the last committed
// checkpoint is rolled back (its productive chip-time becomes lost_work), a
// spare that is up replaces each failed member (a warm standby after
// `swap_time`; once the `standbys` are used up, any other up spare after
// `host_selection_time`), and once every member is up the job restarts for
// `restart_time`. With no spare up it waits for the repair. A repaired slice
// that returns to the spares becomes a warm standby again while fewer than
// `standbys` are warm. Checkpoints (see checkpoint_config.h) are taken at
// step boundaries every interval of compute.
//
// A member failure during the restart (`failure_during_restart`):
//   absorb (default): the restart goes on; the failed member is swapped (or
//     repaired) in parallel and the job resumes once both are done. Each
//     failure while training costs one restart: up-fraction 1 / (1 + lambda c)
//     for a job failure rate lambda and restart c (with instant swaps).
//   extend: as absorb, and the restart ends `restart_extension` later.
//   restart: the job goes back to waiting and the restart begins again once
//     every member is up: up-fraction e^(-lambda c).
// With `swap_overlaps_restart` the restart does not wait for the swaps: it
// begins once every member is up or being swapped in, and the job resumes
// when both are done (max(restart, swap) instead of their sum).
//
// While running, each step takes base x s + c: base is the job's step time,
// s the slowest member's slowdown, c the non-overlapped all-reduce (inside a
// site, and across sites over the WAN when members span sites). A member's
// chips are productive for base x their own slice's slowdown, wait for the
// slowest member for the rest of base x s (straggler_wait) and c sync_wait
// (RunningSplit). A rollback moves exactly the productive chip-time charged
// for the steps it discards.
//
// States and their chip-time: running (as above), checkpoint (blocking write
// or snapshot: `checkpoint`), waiting (members down: `idle`; spare swaps
// pending: `reconfigure`), restarting (`reconfigure`), done (target reached;
// the run ends). Chips of down slices are `down`, up non-members `idle`.
#pragma once

#include <cstdint>
#include <optional>

#include "models/policy/checkpoint_config.h"
#include "models/policy/mode_times.h"
#include "models/policy/single_job_policy.h"
#include "models/policy/slice_pool.h"
#include "models/policy/step_charge.h"
#include "models/policy/step_clock.h"
#include "models/policy/wan_meter.h"
#include "sim/scenario/reader.h"

namespace goodsim::models::policy {

struct DataParallelConfig {
  enum class DuringRestart { kAbsorb, kExtend, kRestart };

  core::Duration restart_time;  // detection + restart once every member is up
  core::Duration swap_time;     // bringing a warm standby into the job
  DuringRestart during_restart = DuringRestart::kAbsorb;
  core::Duration restart_extension;  // kExtend: added per member failure
  std::optional<uint32_t> standbys;  // warm standbys among the spares; none: all
  core::Duration host_selection_time;  // bringing in a spare that is not warm
  bool swap_overlaps_restart = false;  // restart while the spares are swapped in
  CheckpointConfig checkpoint;

  static DataParallelConfig from_json(scenario::ObjectReader& r);
};

class DataParallel : public SingleJobPolicy {
 public:
  explicit DataParallel(DataParallelConfig config);

  void start(RunContext& ctx) override;
  Progress progress(core::SimTime now) const override;
  std::vector<cluster::SliceId> learner_slices(uint32_t k) const override;
  bool slice_allocated(cluster::SliceId s) const override;
  bool slice_running(cluster::SliceId s) const override;
  void on_cluster_change(const cluster::ClusterChange& change) override;
  void flush_loss(core::SimTime now) override;
  void describe(output::Diagnostics& d, core::SimTime end) const override;
  double wan_bytes(core::SimTime end) const override { return wan_.bytes(clock_.steps(end)); }

 private:
  enum class State { kRunning, kCheckpoint, kWaiting, kRestarting, kDone };
  static constexpr size_t kStateCount = 5;
  static_assert(static_cast<size_t>(State::kDone) + 1 == kStateCount, "kDone is the last State");
  struct Snapshot {
    uint64_t steps = 0;
    ChipNanos productive = 0;
  };

  static const char* state_name(State s);
  void register_handlers();
  void report_to_loss(uint64_t durable_steps);
  void enter(State s);
  void begin_running();
  void stop_running(bool lose_uncommitted);
  void handle_member_failures();
  void try_restart();
  void on_restart_done();
  void absorb_during_restart();
  core::Duration next_swap_time();
  void refill_standby();
  void repace() override;  // the step time changed: new pace from now
  void settle(core::SimTime end) override;
  void on_swap_done();
  void on_checkpoint_due();
  void on_checkpoint_written();
  void on_async_committed();
  void on_target();
  void schedule_step_events();
  uint64_t checkpoint_every_steps() const;
  core::Duration pace() const;
  double member_slowdown() const;
  RunningSplit running_split(core::Duration step) const;
  core::Duration comm_time() const;
  void open_wan_segment();
  void refresh_split();
  Snapshot snapshot() const;

  DataParallelConfig config_;
  std::optional<SlicePool> pool_;
  StepClock clock_;
  StepCharge charge_;     // productive chip-time charged along clock_
  WanMeter wan_;          // WAN bytes of the steps along clock_
  RunningSplit running_;  // chip units per category while running
  State state_ = State::kWaiting;
  Snapshot committed_;
  std::optional<Snapshot> in_flight_;  // checkpoint being written
  uint32_t pending_swaps_ = 0;
  uint32_t warm_standbys_ = 0;      // warm standbys ready now (with config_.standbys)
  bool restart_paid_ = false;       // the restart is done; resume once members are up
  core::SimTime restart_end_;       // when the restart under way ends
  uint32_t trace_track_ = 0;
  uint64_t interruptions_ = 0;
  ModeTimes<kStateCount> state_times_;  // time in each State
  uint64_t interval_steps_ = 0;         // checkpoint interval last scheduled, in steps
  uint64_t checkpoints_ = 0;            // checkpoints committed
  uint64_t loss_reported_steps_ = 0;  // steps reported to ctx.loss
  uint64_t target_steps_ = 0;  // 0: no target
  core::HandlerId h_restart_ = 0, h_swap_ = 0, h_due_ = 0, h_written_ = 0, h_commit_ = 0,
                  h_target_ = 0;
  core::EventId restart_event_, due_event_, written_event_, commit_event_, target_event_;
};

}  // namespace goodsim::models::policy
