// An elastic data-parallel group over a contiguous range of slices: the
// building block of elastic_data_parallel (one group over the job's slices)
// and of the DiLoCo policies (one group per learner).
//
// The group trains on the slices of its range that are up. When one goes down
// everyone pauses for `downscale_time` and continues with the rest (a smaller
// batch, no rollback; the step in flight is lost); when one comes back,
// everyone pauses for `upscale_time` and grows back. A change during a pause
// restarts the pause. With fewer than `min_slices` up the group stops (mode
// kDown) until enough return, then pauses `restart_time`; the owner decides
// whether that also rolls back progress (rollback_to()).
//
// Pace: each step takes base x s + c, with s the slowest active slice's
// slowdown and c the non-overlapped all-reduce among active slices (WAN hops
// included when the range spans sites). Tokens per step are proportional to
// the active slices: tokens_per_slice_step each.
//
// The owner forwards cluster and slowdown notifications, may hold the group
// (a barrier: the clock stops, active chips are charged sync_wait) and is told
// through the listener whenever mode or pace changes, so it can reschedule
// events that depend on time_of_step().
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "models/policy/chip_time_ledger.h"
#include "models/policy/slice_range_health.h"
#include "models/policy/step_clock.h"
#include "models/run_context.h"

namespace goodsim::models::policy {

struct ElasticSpec {
  core::Duration downscale_time;  // pause when a slice leaves
  core::Duration upscale_time;    // pause when a slice returns
  core::Duration restart_time;    // pause to restart after being below min_slices
  uint32_t min_slices = 1;
};

class ElasticGroup {
 public:
  enum class Mode { kRunning, kReconfiguring, kHeld, kDown };
  using Listener = std::function<void(ElasticGroup&)>;

  // REQUIRES: first < end <= slices; spec.min_slices >= 1. Registers its
  // handler with the simulation; call start() at t = 0.
  ElasticGroup(RunContext& ctx, std::string name, cluster::SliceId first, cluster::SliceId end,
               ElasticSpec spec, double tokens_per_slice_step, Listener listener);
  ElasticGroup(const ElasticGroup&) = delete;
  ElasticGroup& operator=(const ElasticGroup&) = delete;

  void start();
  void on_cluster_change(const cluster::ClusterChange& change);
  void on_slowdown_change();
  // Stops training at a barrier (only from kRunning or kReconfiguring).
  void hold();
  // Resumes after hold(); pays a reconfiguration first if slices changed.
  void release();
  // Resumes after hold() through a reconfiguration pause of `pause` (e.g.
  // pulling the model from a peer), or the resize pause if slices changed
  // while held and that is longer. Goes down instead if below min_slices.
  void release_after(core::Duration pause);
  bool held() const { return held_; }
  // Pauses for `d` now (kReconfiguring, charged reconfigure): the owner's own
  // reconfiguration, e.g. a learner pulling state before it rejoins. Ends a
  // hold and replaces a pause under way; the step in flight is lost. Below
  // min_slices the group goes (or stays) kDown instead. Unlike the other
  // changes it does not call the listener: the owner asked for it.
  void pause(core::Duration d);
  // Rolls progress back (a checkpoint restart). REQUIRES: mode() != kRunning.
  void rollback_to(uint64_t steps, double tokens);

  Mode mode() const { return mode_; }
  cluster::SliceId first() const { return first_; }
  cluster::SliceId end() const { return end_; }
  uint32_t active_slices() const { return active_; }
  uint64_t steps(core::SimTime now) const { return clock_.steps(now); }
  double tokens(core::SimTime now) const;
  std::optional<core::SimTime> time_of_step(uint64_t n) const;
  // Duration of one step at the current pace (the last pace while stopped).
  core::Duration step_duration() const { return clock_.step(); }
  // Chip-time of lost partial steps so far, in chip-units x ns.
  ChipNanos lost_work() const { return lost_; }
  uint64_t chips() const;
  uint64_t active_chips() const;
  uint64_t down_chips() const { return health_.down_chips(); }
  // The step clock (a copy of it predicts this group's steps until the next
  // change of mode or pace).
  const StepClock& clock() const { return clock_; }
  // Adds this group's chips (all of its range) to a ledger split.
  void add_split(ChipTimeLedger::Split& split) const;

 private:
  static const char* mode_name(Mode m);
  void set_mode(Mode m);  // and its span on the timeline
  void on_pause_done();
  void begin_pause(core::Duration d);
  void run();
  void stop_clock();
  void update_mode();
  core::Duration pace() const;
  double slowdown() const;
  core::SimTime now() const { return ctx_.sim.now(); }

  RunContext& ctx_;
  std::string name_;
  cluster::SliceId first_, end_;
  ElasticSpec spec_;
  double tokens_per_slice_step_;
  Listener listener_;
  SliceRangeHealth health_;  // down chips and up slices per site of the range
  core::HandlerId pause_handler_ = 0;
  uint32_t trace_track_ = 0;
  core::EventId pause_event_;
  Mode mode_ = Mode::kDown;
  bool held_ = false;
  bool changed_while_held_ = false;
  uint32_t active_ = 0;
  uint32_t clock_active_ = 0;  // active slices the running clock was started with
  StepClock clock_;
  double tokens_done_ = 0;     // tokens of closed running segments
  uint64_t steps_at_segment_ = 0;
  ChipNanos lost_ = 0;
};

}  // namespace goodsim::models::policy
