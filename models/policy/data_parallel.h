// data_parallel: one synchronous SPMD job over a fixed number of slices.
//
// Members are slices [0, slices - spare_slices); the rest are spares. Any
// member going down stops the whole job: the work since the last committed
// checkpoint is rolled back (its productive chip-time becomes lost_work), a
// spare that is up replaces each failed member after `swap_time`, and once
// every member is up the job restarts for `restart_time` (a failure during
// the restart sends it back to waiting; the restart begins again). With no
// spare it waits for the repair. Checkpoints (see checkpoint_config.h) are
// taken at step boundaries every interval of compute.
//
// While running, each step takes base x s + c: base is the job's step time,
// s the slowest member's slowdown, c the non-overlapped all-reduce (inside a
// site, and across sites over the WAN when members span sites). Of that,
// base is productive, base (s - 1) straggler_wait and c sync_wait.
//
// States and their chip-time: running (as above), checkpoint (blocking write
// or snapshot: `checkpoint`), waiting (members down: `idle`; spare swaps
// pending: `reconfigure`), restarting (`reconfigure`), done (target reached;
// the run ends). Chips of down slices are `down`, up non-members `idle`.
#pragma once

#include <optional>

#include "models/policy/checkpoint_config.h"
#include "models/policy/policy_base.h"
#include "models/policy/slice_pool.h"
#include "models/policy/step_clock.h"
#include "sim/scenario/reader.h"

namespace goodsim::models::policy {

struct DataParallelConfig {
  core::Duration restart_time;  // detection + restart once every member is up
  core::Duration swap_time;     // bringing a spare slice into the job
  CheckpointConfig checkpoint;

  static DataParallelConfig from_json(scenario::ObjectReader& r);
};

class DataParallel : public PolicyBase {
 public:
  explicit DataParallel(DataParallelConfig config);

  void start(RunContext& ctx) override;
  void finish(core::SimTime end) override;
  Progress progress(core::SimTime now) const override;
  uint32_t learner_count() const override { return 1; }
  std::vector<cluster::SliceId> learner_slices(uint32_t k) const override;
  void on_cluster_change(const cluster::ClusterChange& change) override;
  void on_slowdown_change(const cluster::SlowdownChange& change) override;
  void flush_loss(core::SimTime now) override;
  void on_network_change() override;

 private:
  enum class State { kRunning, kCheckpoint, kWaiting, kRestarting, kDone };
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
  void repace();  // the step time changed: new pace from now
  void on_swap_done();
  void on_checkpoint_due();
  void on_checkpoint_written();
  void on_async_committed();
  void on_target();
  void schedule_step_events();
  uint64_t checkpoint_every_steps() const;
  core::Duration pace() const;
  double member_slowdown() const;
  core::Duration comm_time() const;
  void refresh_split();
  Snapshot snapshot() const;
  core::SimTime now() const { return ctx_->sim.now(); }

  DataParallelConfig config_;
  RunContext* ctx_ = nullptr;
  std::optional<SlicePool> pool_;
  StepClock clock_;
  State state_ = State::kWaiting;
  Snapshot committed_;
  std::optional<Snapshot> in_flight_;  // checkpoint being written
  uint32_t pending_swaps_ = 0;
  uint32_t trace_track_ = 0;
  uint64_t interruptions_ = 0;
  uint64_t loss_reported_steps_ = 0;  // steps reported to ctx.loss
  uint64_t target_steps_ = 0;  // 0: no target
  core::HandlerId h_restart_ = 0, h_swap_ = 0, h_due_ = 0, h_written_ = 0, h_commit_ = 0,
                  h_target_ = 0;
  core::EventId restart_event_, due_event_, written_event_, commit_event_, target_event_;
};

}  // namespace goodsim::models::policy
