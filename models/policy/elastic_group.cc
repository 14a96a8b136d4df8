#include "models/policy/elastic_group.h"

#include <algorithm>
#include <array>

#include "models/policy/comm_model.h"

namespace goodsim::models::policy {

ElasticGroup::ElasticGroup(RunContext& ctx, std::string name, cluster::SliceId first,
                           cluster::SliceId end, ElasticSpec spec, double tokens_per_slice_step,
                           Listener listener)
    : ctx_(ctx),
      name_(std::move(name)),
      first_(first),
      end_(end),
      spec_(spec),
      tokens_per_slice_step_(tokens_per_slice_step),
      listener_(std::move(listener)),
      health_(ctx.cluster, first, end),
      absent_(end - first, false) {
  GOODSIM_CHECK(first < end && end <= ctx.layout().slices() && spec.min_slices >= 1);
  pause_handler_ = ctx.sim.add_handler(name_ + ".pause_done",
                                       [this](const core::Event&) { on_pause_done(); });
  trace_track_ = ctx.trace_track(name_);
  if (spec_.upscale_every) {
    window_handler_ = ctx.sim.add_handler(name_ + ".upscale_window",
                                          [this](const core::Event&) { on_upscale_window(); });
  }
}

const char* ElasticGroup::mode_name(Mode m) {
  static constexpr std::array<const char*, kModeCount> kNames = {
      "training", "reconfigure", "waiting", "down"};  // in Mode order
  return name_in_order(kNames, m);
}

void ElasticGroup::set_mode(Mode m) {
  mode_ = m;
  mode_times_.enter(static_cast<size_t>(m), now());
  ctx_.trace_state(trace_track_, mode_name(m));
}

void ElasticGroup::start() {
  health_.recount();
  active_ = health_.up_slices();
  for (cluster::SliceId s = first_; s < end_; ++s) {
    if (!present(s) && ctx_.cluster.slice_up(s)) --active_;
  }
  if (active_ >= spec_.min_slices) {
    run();
  } else {
    set_mode(Mode::kDown);
  }
}

uint64_t ElasticGroup::chips() const {
  return uint64_t{end_ - first_} * ctx_.layout().chips_per_slice();
}

uint64_t ElasticGroup::active_chips() const {
  return uint64_t{active_} * ctx_.layout().chips_per_slice();
}

void ElasticGroup::on_cluster_change(const cluster::ClusterChange& change) {
  if (!health_.on_cluster_change(change)) return;
  const uint32_t before = active_;
  for (cluster::SliceId s : change.slices_flipped) {
    if (s < first_ || s >= end_) continue;
    apply_flip(s, change.failed);
  }
  after_flips(before);
}

void ElasticGroup::after_flips(uint32_t before) {
  if (spec_.upscale_batch && waiting_.size() >= *spec_.upscale_batch) take_waiting();
  if (active_ != before) update_mode(active_ > before ? active_ - before : before - active_);
  listener_(*this);
}

void ElasticGroup::start_absent(cluster::SliceId first, cluster::SliceId end) {
  GOODSIM_CHECK(first_ <= first && first < end && end <= end_);
  for (cluster::SliceId s = first; s < end; ++s) {
    absent_count_ += present(s) ? 1 : 0;
    absent_[s - first_] = true;
  }
}

void ElasticGroup::set_present(cluster::SliceId first, cluster::SliceId end, bool present) {
  GOODSIM_CHECK(first_ <= first && first < end && end <= end_);
  const uint32_t before = active_;
  for (cluster::SliceId s = first; s < end; ++s) {
    if (this->present(s) == present) continue;
    absent_[s - first_] = !present;
    absent_count_ = present ? absent_count_ - 1 : absent_count_ + 1;
    if (ctx_.cluster.slice_up(s)) flip_active(s, !present);
  }
  after_flips(before);
}

// An absent slice's failure or repair changes nothing in the group.
void ElasticGroup::apply_flip(cluster::SliceId s, bool failed) {
  if (present(s)) flip_active(s, failed);
}

// A slice that goes leaves the active set (or the waiting list); a returning
// one joins it, or waits for the next upscale when upscales are batched and
// the group is training.
void ElasticGroup::flip_active(cluster::SliceId s, bool failed) {
  if (failed) {
    const auto it = std::find(waiting_.begin(), waiting_.end(), s);
    if (it != waiting_.end()) {
      waiting_.erase(it);
    } else {
      --active_;
    }
    return;
  }
  if (!batching() || mode_ == Mode::kDown) {
    ++active_;
    return;
  }
  waiting_.push_back(s);
  if (spec_.upscale_every && !window_armed_) {
    window_armed_ = true;
    const int64_t every = spec_.upscale_every->ns();
    const int64_t next = (now().since_start().ns() / every + 1) * every;
    window_event_ = ctx_.sim.schedule_at(core::SimTime::zero() + core::Duration::nanos(next),
                                         core::kBandPolicy, window_handler_);
  }
}

// Every waiting slice becomes active; returns how many.
uint32_t ElasticGroup::take_waiting() {
  const auto n = static_cast<uint32_t>(waiting_.size());
  active_ += n;
  waiting_.clear();
  ctx_.sim.cancel(window_event_);
  window_armed_ = false;
  return n;
}

void ElasticGroup::on_upscale_window() {
  window_armed_ = false;
  const uint32_t n = take_waiting();
  if (n == 0) return;
  update_mode(n);
  listener_(*this);
}

void ElasticGroup::update_mode(uint32_t changed) {
  if (held_) {
    changed_while_held_ = true;
    return;
  }
  const bool was_down = mode_ == Mode::kDown;
  const bool pausing = mode_ == Mode::kReconfiguring;
  stop_clock();
  if (active_ < spec_.min_slices) changed += take_waiting();
  if (active_ < spec_.min_slices) {
    ctx_.sim.cancel(pause_event_);
    set_mode(Mode::kDown);
    return;
  }
  if (was_down) {
    begin_pause(spec_.restart_time);
  } else if (pausing && spec_.during_pause != ElasticSpec::DuringPause::kRestart) {
    coalesce_pause(changed);
  } else {
    begin_pause(resize_time(changed));
  }
}

core::Duration ElasticGroup::resize_time(uint32_t changed) const {
  const core::Duration fixed = active_ < clock_active_ ? spec_.downscale_time : spec_.upscale_time;
  return fixed + spec_.resize_per_slice * static_cast<int64_t>(changed);
}

// The pause under way takes in `changed` more slices: it grows by their
// per-slice cost (and, with `extend`, by the extension).
void ElasticGroup::coalesce_pause(uint32_t changed) {
  core::Duration extra = spec_.resize_per_slice * static_cast<int64_t>(changed);
  if (spec_.during_pause == ElasticSpec::DuringPause::kExtend) extra += spec_.pause_extension;
  if (extra == core::Duration::zero()) return;
  ctx_.sim.cancel(pause_event_);
  pause_end_ += extra;
  pause_event_ = ctx_.sim.schedule_at(pause_end_, core::kBandPolicy, pause_handler_);
}

void ElasticGroup::begin_pause(core::Duration d) {
  ctx_.sim.cancel(pause_event_);
  set_mode(Mode::kReconfiguring);
  pause_end_ = now() + d;
  pause_event_ = ctx_.sim.schedule_at(pause_end_, core::kBandPolicy, pause_handler_);
}

void ElasticGroup::on_pause_done() {
  run();
  listener_(*this);
}

void ElasticGroup::run() {
  set_mode(Mode::kRunning);
  clock_active_ = active_;
  steps_at_segment_ = clock_.steps(now());
  clock_.start(now(), pace());
  wan_.open(clock_.steps(now()), dp_step_wan_bytes(ctx_, ring_per_site()));
  running_ = running_split();
  charge_.start(now(), running_.productive);
}

// The step in flight is lost: exactly the productive chip-time charged for it.
void ElasticGroup::stop_clock() {
  if (!clock_.running()) return;
  lost_ += charge_.stop(now(), clock_);
  wan_.close(clock_.steps(now()));
  clock_.stop(now());
  const uint64_t seg = clock_.steps(now()) - steps_at_segment_;
  tokens_done_ += static_cast<double>(seg) * clock_active_ * tokens_per_slice_step_;
  running_ = RunningSplit{};
}

void ElasticGroup::on_slowdown_change() {
  if (mode_ != Mode::kRunning) return;
  const core::Duration step = pace();
  const RunningSplit next = running_split(step);
  charge_.repace(now(), clock_, next.productive);
  wan_.close(clock_.steps(now()));
  clock_.set_step(now(), step);
  wan_.open(clock_.steps(now()), dp_step_wan_bytes(ctx_, ring_per_site()));
  running_ = next;
  listener_(*this);
}

void ElasticGroup::hold() {
  stop_clock();
  ctx_.sim.cancel(pause_event_);
  changed_while_held_ = mode_ == Mode::kReconfiguring || mode_ == Mode::kDown;
  held_ = true;
  set_mode(Mode::kHeld);
  listener_(*this);
}

void ElasticGroup::release() {
  GOODSIM_CHECK(held_);
  held_ = false;
  if (active_ < spec_.min_slices) {
    set_mode(Mode::kDown);
  } else if (changed_while_held_) {
    begin_pause(active_ < clock_active_ ? spec_.downscale_time : spec_.upscale_time);
  } else {
    run();
  }
  listener_(*this);
}

void ElasticGroup::release_after(core::Duration pause) {
  GOODSIM_CHECK(held_);
  held_ = false;
  if (active_ < spec_.min_slices) {
    set_mode(Mode::kDown);
  } else {
    core::Duration d = pause;
    if (changed_while_held_) {
      d = std::max(d, active_ < clock_active_ ? spec_.downscale_time : spec_.upscale_time);
    }
    begin_pause(d);
  }
  listener_(*this);
}

void ElasticGroup::pause(core::Duration d) {
  held_ = false;
  changed_while_held_ = false;
  stop_clock();
  if (active_ < spec_.min_slices) {
    ctx_.sim.cancel(pause_event_);
    set_mode(Mode::kDown);
    return;
  }
  begin_pause(d);
}

void ElasticGroup::rollback_to(uint64_t steps, double tokens) {
  GOODSIM_CHECK(!clock_.running());
  clock_.rollback_to(steps);
  steps_at_segment_ = steps;
  tokens_done_ = tokens;
}

bool ElasticGroup::slice_computing(cluster::SliceId s) const {
  return contains(s) && mode_ == Mode::kRunning && ctx_.cluster.slice_up(s) && present(s) &&
         std::find(waiting_.begin(), waiting_.end(), s) == waiting_.end();
}

double ElasticGroup::tokens(core::SimTime t) const {
  if (!clock_.running()) return tokens_done_;
  const uint64_t seg = clock_.steps(t) - steps_at_segment_;
  return tokens_done_ + static_cast<double>(seg) * clock_active_ * tokens_per_slice_step_;
}

std::optional<core::SimTime> ElasticGroup::time_of_step(uint64_t n) const {
  return clock_.time_of_step(now(), n);
}

// The slowest active slice: the up slices of the range but those waiting for
// an upscale, which split it into gaps.
double ElasticGroup::slowdown() const {
  const cluster::SlowdownState& sd = ctx_.cluster.slowdown();
  const double whole = sd.max_slowdown(first_, end_);
  if (waiting_.empty()) return whole;
  // The ranges between waiting slices take a maximum over fewer slices: at
  // most `whole`. At nominal speed nothing to split.
  if (whole <= 1.0) return 1.0;
  std::vector<cluster::SliceId> gaps = waiting_;
  std::sort(gaps.begin(), gaps.end());
  double worst = 1.0;
  cluster::SliceId from = first_;
  for (cluster::SliceId w : gaps) {
    worst = std::max(worst, sd.max_slowdown(from, w));
    from = w + 1;
  }
  return std::max(worst, sd.max_slowdown(from, end_));
}

double ElasticGroup::sum_slowdown() const {
  const cluster::SlowdownState& sd = ctx_.cluster.slowdown();
  double excess = sd.excess_slowdown(first_, end_);
  for (cluster::SliceId w : waiting_) excess -= sd.slice_slowdown(w) - 1.0;
  return active_ + std::max(0.0, excess);
}

RunningSplit ElasticGroup::running_split(core::Duration step) const {
  return RunningSplit::of(chip_units(ctx_.layout().chips_per_slice()), active_, sum_slowdown(),
                          slowdown(), ctx_.job.step_time, step);
}

ChipNanos ElasticGroup::kept_productive() const {
  return charge_.total(now()) - lost_ - charge_.in_flight(now(), clock_);
}

core::Duration ElasticGroup::pace() const {
  const core::Duration base = ctx_.job.step_time;
  const core::Duration compute = core::Duration::from_seconds(base.seconds_f() * slowdown());
  return compute + dp_step_comm(ctx_, ring_per_site());
}

// Slices waiting for the next upscale window, and absent ones, are up but
// not in the ring.
std::vector<uint32_t> ElasticGroup::ring_per_site() const {
  std::vector<uint32_t> per_site = health_.up_per_site();
  if (waiting_.empty() && absent_count_ == 0) return per_site;
  for (cluster::SliceId s : waiting_) --per_site[ctx_.layout().site_of(s)];
  for (cluster::SliceId s = first_; absent_count_ > 0 && s < end_; ++s) {
    if (!present(s) && ctx_.cluster.slice_up(s)) --per_site[ctx_.layout().site_of(s)];
  }
  return per_site;
}

void ElasticGroup::add_split(ChipTimeLedger::Split& split) const {
  auto at = [&split](Category c) -> uint64_t& { return split[static_cast<size_t>(c)]; };
  const uint64_t active = active_chips();
  at(Category::kDown) += chip_units(down_chips());
  at(Category::kIdle) += chip_units(chips() - down_chips() - active);
  const uint64_t units = chip_units(active);
  GOODSIM_CHECK(mode_ != Mode::kRunning ||
                running_.productive + running_.straggler_wait + running_.sync_wait == units);
  switch (mode_) {
    case Mode::kRunning: running_.add_to(split); break;
    case Mode::kReconfiguring: at(Category::kReconfigure) += units; break;
    case Mode::kHeld: at(Category::kSyncWait) += units; break;
    case Mode::kDown: at(Category::kIdle) += units; break;
  }
}

}  // namespace goodsim::models::policy
