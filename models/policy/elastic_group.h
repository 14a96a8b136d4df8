// An elastic data-parallel group over a contiguous range of slices: the
// building block of elastic_data_parallel (one group over the job's slices)
// and of the DiLoCo policies (one group per learner).
//
// The group trains on the active slices of its range. When k slices go down
// everyone pauses for `downscale_time` + k x `resize_per_slice` and continues
// with the rest (a smaller batch, no rollback; the step in flight is lost);
// when k slices rejoin, everyone pauses for `upscale_time` + k x
// `resize_per_slice` and grows back. A change during a pause (`during_pause`):
//   coalesce (default): the pause under way takes it in; it only grows by
//     k x resize_per_slice;
//   extend: it also grows by `pause_extension`;
//   restart: the pause begins again with the full resize time.
// Upscale batching: a returning slice waits (idle, not active) until the next
// multiple of `upscale_every` since t = 0, or until `upscale_batch` slices
// wait, whichever comes first; then all waiting slices rejoin in one upscale.
// Without either it rejoins at once. Waiting slices rejoin at once when the
// group is down. With fewer than `min_slices` active the group stops (mode
// kDown) until enough return, then pauses `restart_time`; the owner decides
// whether that also rolls back progress (rollback_to()).
//
// Pace: each step takes base x s + c, with s the slowest active slice's
// slowdown and c the non-overlapped all-reduce among active slices (WAN hops
// included when the range spans sites). Chip-time while running: see
// RunningSplit (each chip productive for base x its own slice's slowdown). Tokens per step are proportional to
// the active slices: tokens_per_slice_step each.
//
// Absent slices (scavenged capacity lent back to its owner, set_present):
// not part of the group while absent - never active, their up chips idle -
// and leaving or returning like a failed or repaired slice (a downscale or
// upscale pause). A failure of an absent slice changes nothing but its chips'
// down time.
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
#include <vector>

#include "models/policy/chip_time_ledger.h"
#include "models/policy/mode_times.h"
#include "models/policy/slice_range_health.h"
#include "models/policy/step_charge.h"
#include "models/policy/step_clock.h"
#include "models/policy/wan_meter.h"
#include "models/run_context.h"

namespace goodsim::models::policy {

struct ElasticSpec {
  enum class DuringPause { kCoalesce, kExtend, kRestart };

  core::Duration downscale_time;  // pause when slices leave (fixed part)
  core::Duration upscale_time;    // pause when slices rejoin (fixed part)
  core::Duration restart_time;    // pause to restart after being below min_slices
  uint32_t min_slices = 1;
  core::Duration resize_per_slice{};  // added to a pause per slice that changed
  DuringPause during_pause = DuringPause::kCoalesce;
  core::Duration pause_extension{};   // kExtend: added per change during a pause
  std::optional<core::Duration> upscale_every{};  // upscale window period
  std::optional<uint32_t> upscale_batch{};        // rejoin once this many wait
};

class ElasticGroup {
 public:
  enum class Mode { kRunning, kReconfiguring, kHeld, kDown };
  static constexpr size_t kModeCount = 4;
  static_assert(static_cast<size_t>(Mode::kDown) + 1 == kModeCount, "kDown is the last Mode");
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
  // Slices [first, end) of the range leave the group (present false) or come
  // back (true). REQUIRES: first() <= first < end <= end().
  void set_present(cluster::SliceId first, cluster::SliceId end, bool present);
  // Marks [first, end) absent from the start. REQUIRES: before start().
  void start_absent(cluster::SliceId first, cluster::SliceId end);
  bool present(cluster::SliceId s) const { return !absent_[s - first_]; }
  // Rolls progress back (a checkpoint restart). REQUIRES: mode() != kRunning.
  void rollback_to(uint64_t steps, double tokens);

  Mode mode() const { return mode_; }
  cluster::SliceId first() const { return first_; }
  cluster::SliceId end() const { return end_; }
  uint32_t active_slices() const { return active_; }
  bool contains(cluster::SliceId s) const { return s >= first_ && s < end_; }
  // Slice `s` is one of the active slices and the group is training.
  bool slice_computing(cluster::SliceId s) const;
  // Returned slices waiting for the next upscale (batching only).
  uint32_t waiting_slices() const { return static_cast<uint32_t>(waiting_.size()); }
  uint64_t steps(core::SimTime now) const { return clock_.steps(now); }
  double tokens(core::SimTime now) const;
  // WAN bytes of the steps so far (2 B (S - 1) per step over S sites, comm_model.h).
  double wan_bytes(core::SimTime now) const { return wan_.bytes(clock_.steps(now)); }
  std::optional<core::SimTime> time_of_step(uint64_t n) const;
  // Duration of one step at the current pace (the last pace while stopped).
  core::Duration step_duration() const { return clock_.step(); }
  // Chip-time of lost partial steps so far, in chip-units x ns: exactly the
  // productive chip-time the group charged for them.
  ChipNanos lost_work() const { return lost_; }
  // Productive chip-time charged so far (the ledger's units).
  ChipNanos productive_charged() const { return charge_.total(now()); }
  // Productive chip-time charged so far for whole steps: productive_charged()
  // minus the lost partial steps and the step in flight now. The chip-time of
  // a stretch of steps (rolled back, lost unsynced) is the difference of two
  // of its values.
  ChipNanos kept_productive() const;
  // Productive chip-time charged for the step in flight now (0 unless running).
  ChipNanos in_flight() const { return charge_.in_flight(now(), clock_); }
  // Chip units per category while running (zero otherwise).
  const RunningSplit& running() const { return running_; }
  uint64_t chips() const;
  uint64_t active_chips() const;
  uint64_t down_chips() const { return health_.down_chips(); }
  // The step clock (a copy of it predicts this group's steps until the next
  // change of mode or pace).
  const StepClock& clock() const { return clock_; }
  // Adds this group's chips (all of its range) to a ledger split.
  void add_split(ChipTimeLedger::Split& split) const;
  // Time in each mode and entries into each, indexed by Mode (per-learner results).
  const ModeTimes<kModeCount>& mode_times() const { return mode_times_; }
  // The mode's name on the timeline and in results: "training", "reconfigure", ...
  static const char* name_of(Mode m) { return mode_name(m); }

 private:
  static const char* mode_name(Mode m);
  void set_mode(Mode m);  // and its span on the timeline
  void on_pause_done();
  void begin_pause(core::Duration d);
  void run();
  void stop_clock();
  void update_mode(uint32_t changed);
  void apply_flip(cluster::SliceId s, bool failed);
  void flip_active(cluster::SliceId s, bool gone);
  void after_flips(uint32_t before);
  bool batching() const { return spec_.upscale_every || spec_.upscale_batch; }
  uint32_t take_waiting();
  void on_upscale_window();
  void coalesce_pause(uint32_t changed);
  core::Duration resize_time(uint32_t changed) const;
  core::Duration pace() const;
  std::vector<uint32_t> ring_per_site() const;  // active slices per site
  double slowdown() const;      // of the slowest active slice
  double sum_slowdown() const;  // over the active slices
  RunningSplit running_split(core::Duration step) const;
  RunningSplit running_split() const { return running_split(clock_.step()); }
  core::SimTime now() const { return ctx_.sim.now(); }

  // Asked for every learner at every Decoupled DiLoCo round: first, next to
  // each other (48 bytes).
  Mode mode_ = Mode::kDown;
  bool held_ = false;
  bool changed_while_held_ = false;
  uint32_t active_ = 0;
  uint32_t clock_active_ = 0;  // active slices the running clock was started with
  StepClock clock_;
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
  core::SimTime pause_end_;
  core::HandlerId window_handler_ = 0;
  core::EventId window_event_;
  bool window_armed_ = false;
  std::vector<cluster::SliceId> waiting_;  // returned, not yet rejoined
  std::vector<bool> absent_;               // per slice of the range (set_present)
  uint32_t absent_count_ = 0;
  StepCharge charge_;     // productive chip-time charged along clock_
  WanMeter wan_;          // WAN bytes of the steps along clock_
  RunningSplit running_;  // chip units per category while running
  double tokens_done_ = 0;     // tokens of closed running segments
  uint64_t steps_at_segment_ = 0;
  ChipNanos lost_ = 0;
  ModeTimes<kModeCount> mode_times_;
};

}  // namespace goodsim::models::policy
