// One learner of decoupled_diloco: an ElasticGroup over a contiguous slice
// range, its recent history (for the syncer's after-the-fact questions), and
// its place in the fragment schedule.
//
// Steps. The group counts its own inner steps ("own" steps, never rolled
// back). The schedule runs on "schedule" steps: sched = own + offset. The
// offset is set when the learner (re)joins, to adopt the clock of the peer it
// pulled its state from (or the syncer's), and grows when the learner falls
// behind the syncer's clock (a jump: a slower learner follows the syncer's
// schedule). Schedule steps jumped over map to the own step of the jump (the
// reports due then are made at the jump).
//
// States (the owner's view, on top of the group's mode):
//   kLive       trains or pauses inside its pool (group kRunning or
//               kReconfiguring); receives broadcasts;
//   kDown       below min_slices (group kDown); its unsynced work was lost;
//   kRejoining  slices are back; pulling state from a peer (group
//               kReconfiguring, charged reconfigure) until rejoin_until;
//   kParked     a scavenged learner outside its windows (group held, chips
//               charged idle by the owner).
#pragma once

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/policy/decoupled_diloco_history.h"
#include "models/policy/elastic_group.h"

namespace goodsim::models::policy {

class DecoupledDilocoLearner {
 public:
  enum class State : uint8_t { kLive, kDown, kRejoining, kParked };

  // REQUIRES: first < end <= slices. The group calls `listener` on changes.
  DecoupledDilocoLearner(RunContext& ctx, uint32_t index, cluster::SliceId first,
                         cluster::SliceId end, const ElasticSpec& spec,
                         double tokens_per_slice_step, ElasticGroup::Listener listener);

  ElasticGroup& group() { return group_; }
  const ElasticGroup& group() const { return group_; }
  const DecoupledDilocoHistory& history() const { return history_; }
  uint32_t index() const { return index_; }
  cluster::SiteId site() const { return site_; }
  double tokens_per_slice_step() const { return tokens_per_slice_step_; }

  State state() const { return state_; }
  void set_state(State s) { state_ = s; }
  bool running() const {
    return state_ == State::kLive && group_.mode() == ElasticGroup::Mode::kRunning;
  }
  // Live learners receive broadcasts and may lend their state.
  bool live() const { return state_ == State::kLive; }

  // Own steps completed now; cached until the time moves or record() notes
  // a change.
  [[gnu::always_inline]] uint64_t own_now() const;
  [[gnu::always_inline]] int64_t sched_now() const { return sched_of(own_now()); }
  // Schedule step reached at own step `own`.
  [[gnu::always_inline]] int64_t sched_of(uint64_t own) const;
  // Own step at which schedule step c was (or will be) reached; clamped to 0.
  [[gnu::always_inline]] uint64_t own_of(int64_t c) const;
  // Changes with every adopt_clock() and jump(): answers of sched_of() and
  // own_of() kept by callers hold while it is unchanged.
  uint64_t clock_version() const { return clock_version_; }
  // Restarts the clock so that sched_now() == sched.
  void adopt_clock(int64_t sched);
  // Moves the clock forward by `steps` (> 0) now.
  void jump(int64_t steps);

  // Tokens when own step n completed. REQUIRES: n <= own_now().
  double tokens_at(uint64_t n) const { return history_.tokens_at_step(n); }
  // Productive chip-time the group charged for own steps (from, to], exact
  // in the ledger's units. REQUIRES: from <= to <= own_now().
  ChipNanos kept_between(uint64_t from, uint64_t to) const {
    const ChipNanos now = group_.kept_productive();
    return history_.kept_at_step(to, now) - history_.kept_at_step(from, now);
  }
  // When own step n completed or will (at the current pace); nullopt if it
  // is in the future and the learner is not running.
  [[gnu::always_inline]] std::optional<core::SimTime> time_of_own(uint64_t n) const;
  // Records the group's state now (after every change of the group).
  void record() {
    history_.record(ctx_.sim.now(), group_);
    cached_at_.reset();
  }
  void trim(uint64_t keep_step, core::SimTime keep_time) { history_.trim(keep_step, keep_time); }

  // Reports the inner steps completed since the last report to ctx.loss (no-op
  // without a loss model), at their mean batch.
  void report_loss_steps();

  // Tokens computed and kept (the group's minus those lost to failures).
  double kept_tokens() const { return group_.tokens(ctx_.sim.now()) - lost_tokens_; }
  double lost_tokens() const { return lost_tokens_; }
  void add_lost_tokens(double t) { lost_tokens_ += t; }
  // Group lost work already moved in the ledger.
  ChipNanos& lost_moved() { return lost_moved_; }
  // Productive chip-time of its unsynced steps moved to lost_work when it went
  // down or was parked.
  void add_lost_unsynced(ChipNanos c) { lost_unsynced_ += c; }
  // Productive chip-time it charged and kept so far (its share of the
  // ledger's productive): charged, minus what was moved to lost_work.
  ChipNanos productive_kept() const {
    return group_.productive_charged() - lost_moved_ - lost_unsynced_;
  }
  // Own step from which unsynced progress counts (its last rejoin).
  uint64_t sync_floor() const { return sync_floor_; }
  void set_sync_floor(uint64_t own) { sync_floor_ = own; }
  core::SimTime rejoin_until() const { return rejoin_until_; }
  void set_rejoin_until(core::SimTime t) { rejoin_until_ = t; }
  std::optional<uint32_t> peer() const { return peer_; }
  void set_peer(std::optional<uint32_t> p) { peer_ = p; }
  // Active slices last written to the event log ("resize" events).
  uint32_t& logged_slices() { return logged_slices_; }

 private:
  // The fields asked for at every round come first, then the group, whose
  // own hot fields lead it.
  RunContext& ctx_;
  State state_ = State::kLive;
  uint32_t index_;
  mutable std::optional<core::SimTime> cached_at_;  // own_now() cache
  mutable uint64_t cached_own_ = 0;
  // From own step `own` on, sched = own + offset (until the next segment).
  struct ClockSegment {
    uint64_t own = 0;
    int64_t offset = 0;
  };
  static constexpr size_t kClockSegments = 8;  // kept; older reports are long merged
  std::vector<ClockSegment> clock_{ClockSegment{}};
  uint64_t clock_version_ = 0;
  DecoupledDilocoHistory history_;
  ElasticGroup group_;
  cluster::SiteId site_;
  double tokens_per_slice_step_;
  double lost_tokens_ = 0;
  ChipNanos lost_moved_ = 0;
  ChipNanos lost_unsynced_ = 0;
  uint64_t sync_floor_ = 0;
  core::SimTime rejoin_until_;
  std::optional<uint32_t> peer_;
  uint32_t logged_slices_ = 0;
  uint64_t loss_steps_ = 0;  // own steps and tokens reported to ctx.loss
  double loss_tokens_ = 0;
};

// The policy's learners, indexed by learner number.
using DecoupledDilocoLearners = std::vector<std::unique_ptr<DecoupledDilocoLearner>>;

// Asked for every learner at every round: inline, and always (marked so
// above): in a unity batch the compiler's growth limits otherwise leave one
// or another of them out of line, a call per learner and round.
inline uint64_t DecoupledDilocoLearner::own_now() const {
  const core::SimTime now = ctx_.sim.now();
  if (cached_at_ != now) {
    cached_own_ = group_.clock().steps(now);
    cached_at_ = now;
  }
  return cached_own_;
}

inline int64_t DecoupledDilocoLearner::sched_of(uint64_t own) const {
  const ClockSegment& newest = clock_.back();  // most questions are about it
  if (own >= newest.own) return static_cast<int64_t>(own) + newest.offset;
  auto it = clock_.end();
  while (it != clock_.begin() && std::prev(it)->own > own) --it;
  const ClockSegment& seg = it == clock_.begin() ? clock_.front() : *std::prev(it);
  return static_cast<int64_t>(own) + seg.offset;
}

inline uint64_t DecoupledDilocoLearner::own_of(int64_t c) const {
  const ClockSegment& newest = clock_.back();  // most questions are about it
  if (c >= static_cast<int64_t>(newest.own) + newest.offset) {
    return static_cast<uint64_t>(std::max<int64_t>(0, c - newest.offset));
  }
  for (size_t i = clock_.size(); i-- > 0;) {
    const ClockSegment& seg = clock_[i];
    if (i > 0 && c < static_cast<int64_t>(seg.own) + seg.offset) continue;
    int64_t own = c - seg.offset;
    // Past the end of an older segment: jumped over, made at the jump.
    if (i + 1 < clock_.size()) own = std::min(own, static_cast<int64_t>(clock_[i + 1].own));
    return static_cast<uint64_t>(std::max<int64_t>(0, own));
  }
  return 0;
}

inline std::optional<core::SimTime> DecoupledDilocoLearner::time_of_own(uint64_t n) const {
  if (n > own_now()) {
    if (group_.mode() != ElasticGroup::Mode::kRunning) return std::nullopt;
    return group_.clock().time_of_pending_step(n);  // n > own_now() >= clock steps
  }
  return history_.time_of_step(n);
}

}  // namespace goodsim::models::policy
