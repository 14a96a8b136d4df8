// elastic_data_parallel: one data-parallel job that shrinks and grows with the
// healthy slices instead of stopping (see elastic_group.h for the pauses and
// the pace).
//
// On a failure everyone pauses for `downscale_time` and continues with the
// remaining slices (smaller batch, no rollback; the step in flight is lost);
// when a slice returns everyone pauses for `upscale_time` and grows back.
// Below `min_slices` the job falls back to a checkpoint restart: progress rolls
// back to the last checkpoint (taken every `checkpoint_interval` of wall time
// while training, asynchronously and at no cost) and, once enough slices are
// back, the job restarts for `restart_time`. Spare slices stay idle: an
// elastic job regrows when the failed slice itself returns.
//
// Scavenged capacity (`schedule`: windows {first_slice, end_slice, join,
// leave}): the job's slices [first_slice, end_slice) are part of it only
// during their windows. Outside they are lent out (absent from the group:
// idle, or down when failed); arriving and leaving cost an upscale and a
// downscale pause like slices returning or failing. With `scheduled_resize`
// the job instead takes the capacity in and gives it back the way a
// synchronous job does: it stops, writes a checkpoint (which becomes the
// fallback restart's rollback point), re-shards its state for the new size
// and restarts, one pause of stop + checkpoint + reshard + restart charged
// reconfigure to every active chip (the step in flight is lost). Slices at
// other sites join the all-reduce ring: every step then pays the cross-site
// ring all-reduce over the WAN (elastic_group.h, comm_model.h).
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "models/parse_context.h"
#include "models/policy/elastic_group.h"
#include "models/policy/single_job_policy.h"
#include "models/policy/spare_slices.h"
#include "sim/scenario/reader.h"

namespace goodsim::models::policy {

// Job slices [first, end) are present only during [join, leave).
struct SliceWindow {
  cluster::SliceId first = 0;
  cluster::SliceId end = 0;
  core::Duration join;
  core::Duration leave;  // > join
};

// The synchronous resize at a scheduled join or leave (docs/scavenging.md
// gives each default's source).
struct ScheduledResize {
  core::Duration stop;        // drain the step in flight, quiesce the collectives
  core::Duration checkpoint;  // write the state (blocking)
  core::Duration reshard;     // re-partition state and data for the new size
  core::Duration restart;     // start the program at the new size, reload
  core::Duration total() const { return stop + checkpoint + reshard + restart; }
};

struct ElasticDataParallelConfig {
  ElasticSpec elastic;
  core::Duration checkpoint_interval;
  std::vector<SliceWindow> schedule;  // windows of overlapping ranges never overlap in time
  std::optional<ScheduledResize> scheduled_resize;  // absent: the elastic pauses

  static ElasticDataParallelConfig from_json(scenario::ObjectReader& r, const ParseContext& ctx);
};

class ElasticDataParallel : public SingleJobPolicy {
 public:
  explicit ElasticDataParallel(ElasticDataParallelConfig config);

  void start(RunContext& ctx) override;
  Progress progress(core::SimTime now) const override;
  std::vector<cluster::SliceId> learner_slices(uint32_t k) const override;
  bool slice_allocated(cluster::SliceId s) const override;
  bool slice_running(cluster::SliceId s) const override;
  void on_cluster_change(const cluster::ClusterChange& change) override;
  void describe(output::Diagnostics& d, core::SimTime end) const override;
  double wan_bytes(core::SimTime end) const override { return group_->wan_bytes(end); }

 private:
  struct Checkpoint {
    uint64_t steps = 0;
    double tokens = 0;
    ChipNanos productive = 0;
  };

  // A slowdown or a partition (which changes the group's WAN cost exactly
  // like a slowdown changes its compute): the group re-paces from now.
  void repace() override;
  void settle(core::SimTime end) override;
  void on_group_change();
  void on_checkpoint();
  void schedule_windows();
  void on_window(uint64_t index, bool join);
  void take_checkpoint();
  void on_target();
  void schedule_target();
  void refresh_split();
  void report_to_loss(uint64_t steps, double tokens);
  void report_stretch(uint64_t steps, double tokens);  // one batch since loss_reported_

  ElasticDataParallelConfig config_;
  std::unique_ptr<ElasticGroup> group_;
  std::optional<SpareSlices> spares_;  // set in start()
  Checkpoint checkpoint_;
  Checkpoint loss_reported_;  // progress reported to ctx.loss
  // Progress at every change of the group since loss_reported_: the batch is
  // constant between two of them, so each stretch reaches the loss model
  // with its own batch.
  std::vector<Checkpoint> batch_changes_;
  ChipNanos lost_moved_ = 0;  // group lost work already moved in the ledger
  bool was_down_ = false;
  uint32_t logged_slices_ = 0;  // active slices last logged ("resize" events)
  uint64_t checkpoints_ = 0;
  bool done_ = false;
  core::HandlerId h_checkpoint_ = 0, h_target_ = 0, h_window_ = 0;
  core::EventId target_event_;
};

}  // namespace goodsim::models::policy
