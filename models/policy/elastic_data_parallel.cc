#include "models/policy/elastic_data_parallel.h"

#include "models/loss_tracker.h"
#include "models/policy/elastic_spec.h"
#include "models/policy/learner_results.h"

#include <algorithm>
#include <cmath>

namespace goodsim::models::policy {

namespace {

void read_slice_windows(scenario::ObjectReader& r, std::optional<uint32_t> members,
                        std::vector<SliceWindow>& out) {
  for (scenario::ObjectReader& w : r.optional_object_list(
           "schedule", "scavenged slices: each range present only in its [join, leave) windows")) {
    SliceWindow s;
    s.first = static_cast<cluster::SliceId>(
        w.count("first_slice", "first job slice of the range", 0, UINT32_MAX));
    s.end = static_cast<cluster::SliceId>(
        w.count("end_slice", "one past the last job slice of the range", 1, UINT32_MAX));
    s.join = w.duration("join", "when the range's capacity arrives");
    s.leave = w.duration("leave", "when it is taken away again", core::Duration::nanos(1));
    if (w.describing()) continue;
    if (s.end <= s.first) w.fail("end_slice", "end_slice must be above first_slice");
    if (members && s.end > *members) {
      w.fail("end_slice", "end_slice (" + std::to_string(s.end) + ") exceeds the " +
                              std::to_string(*members) + " job slices");
    }
    if (s.leave <= s.join) w.fail("leave", "leave must be after join");
    for (const SliceWindow& o : out) {
      if (s.first < o.end && o.first < s.end && s.join < o.leave && o.join < s.leave) {
        w.fail("join", "windows of overlapping slice ranges overlap in time");
      }
    }
    out.push_back(s);
  }
}

std::optional<ScheduledResize> read_scheduled_resize(scenario::ObjectReader& r) {
  auto o = r.optional_object("scheduled_resize",
                             "scheduled joins and leaves resize the job like a synchronous "
                             "job: stop, checkpoint, reshard, restart (default: the elastic "
                             "upscale and downscale pauses)");
  if (!o) return std::nullopt;
  ScheduledResize z;
  z.stop = o->duration("stop", core::Duration::seconds(30),
                       "drain the step in flight and quiesce the collectives");
  z.checkpoint = o->duration("checkpoint", core::Duration::minutes(1),
                             "blocking write of the state, the new rollback point");
  z.reshard = o->duration("reshard", core::Duration::minutes(2),
                          "re-partition state and data for the new data-parallel size");
  z.restart = o->duration("restart", core::Duration::minutes(10),
                          "start the program at the new size (\"10 or more minutes\")");
  return z;
}

}  // namespace

ElasticDataParallelConfig ElasticDataParallelConfig::from_json(scenario::ObjectReader& r,
                                                               const ParseContext& ctx) {
  ElasticDataParallelConfig c;
  std::optional<uint32_t> members;
  if (ctx.layout != nullptr) members = ctx.layout->slices() - ctx.layout->spare_slices();
  c.elastic = read_elastic_spec(r, members);
  c.checkpoint_interval = r.duration("checkpoint_interval", core::Duration::minutes(30),
                                     "wall time between (free, asynchronous) checkpoints used "
                                     "by the fallback restart", core::Duration::nanos(1));
  read_slice_windows(r, members, c.schedule);
  c.scheduled_resize = read_scheduled_resize(r);
  return c;
}

ElasticDataParallel::ElasticDataParallel(ElasticDataParallelConfig config)
    : config_(config) {}

void ElasticDataParallel::start(RunContext& ctx) {
  ctx_ = &ctx;
  spares_.emplace(ctx.cluster);
  const cluster::Layout& l = ctx.layout();
  const uint32_t members = l.slices() - l.spare_slices();
  ledger_ = ChipTimeLedger(l.chips());
  const double per_slice = ctx.job.tokens_per_step / members;
  group_ = std::make_unique<ElasticGroup>(ctx, ctx.policy_name + ".group", 0, members,
                                          config_.elastic, per_slice,
                                          [this](ElasticGroup&) { on_group_change(); });
  h_checkpoint_ = ctx.sim.add_handler(ctx.policy_name + ".checkpoint",
                                      [this](const core::Event&) { on_checkpoint(); });
  h_target_ = ctx.sim.add_handler(ctx.policy_name + ".target",
                                  [this](const core::Event&) { on_target(); });
  // Without a schedule no handler: the run's other handlers keep their numbers.
  if (!config_.schedule.empty()) {
    h_window_ = ctx.sim.add_handler(ctx.policy_name + ".window", [this](const core::Event& e) {
      on_window(e.a, e.b != 0);
    });
  }
  if (ctx.loss != nullptr) ctx.loss->start({ctx.job.params, ctx.job.tokens_per_step, 1, 0, 1});
  schedule_windows();
  group_->start();
  logged_slices_ = group_->active_slices();
  outages_.start(group_->mode() == ElasticGroup::Mode::kRunning, ctx.sim.now());
  ctx.sim.schedule_in(config_.checkpoint_interval, core::kBandPolicy, h_checkpoint_);
  refresh_split();
  schedule_target();
}

void ElasticDataParallel::on_cluster_change(const cluster::ClusterChange& change) {
  spares_->on_cluster_change(change);
  if (done_) return refresh_split();
  group_->on_cluster_change(change);
  refresh_split();
}

void ElasticDataParallel::repace() {
  if (done_) return;
  group_->on_slowdown_change();
}

// Books the group's lost partial steps, detects the fall below min_slices
// (rolling back to the last checkpoint), and refreshes everything that
// depends on the group's mode and pace.
void ElasticDataParallel::on_group_change() {
  const core::SimTime now = ctx_->sim.now();
  ledger_.advance(now);
  const ChipNanos lost = group_->lost_work() - lost_moved_;
  if (lost > 0) ledger_.move(Category::kProductive, Category::kLostWork, lost);
  lost_moved_ = group_->lost_work();
  const bool down = group_->mode() == ElasticGroup::Mode::kDown;
  if (down && !was_down_) {
    // The checkpoint holds the productive chip-time of its whole steps.
    const ChipNanos rolled = ledger_.total(Category::kProductive) - checkpoint_.productive;
    ledger_.move(Category::kProductive, Category::kLostWork, rolled);
    group_->rollback_to(checkpoint_.steps, checkpoint_.tokens);
    ctx_->log("fallback_restart", [&] { return nlohmann::json{{"to_step", checkpoint_.steps}}; });
    while (!batch_changes_.empty() && batch_changes_.back().steps > checkpoint_.steps) {
      batch_changes_.pop_back();
    }
  }
  was_down_ = down;
  const uint64_t steps = group_->steps(now);
  if (steps > (batch_changes_.empty() ? loss_reported_.steps : batch_changes_.back().steps)) {
    batch_changes_.push_back({steps, group_->tokens(now), 0});
  }
  log_resize(*ctx_, *group_, logged_slices_);
  outages_.set_training(group_->mode() == ElasticGroup::Mode::kRunning, now);
  refresh_split();
  schedule_target();
}

// Windowed slices start absent unless a window of theirs opens at t = 0.
// Leaves are scheduled first, so a range whose window ends when its next
// begins leaves, then comes back.
void ElasticDataParallel::schedule_windows() {
  const uint32_t n = group_->end();
  std::vector<bool> windowed(n, false), present(n, false);
  for (size_t i = 0; i < config_.schedule.size(); ++i) {
    ctx_->sim.schedule_in(config_.schedule[i].leave, core::kBandPolicy, h_window_, i, 0);
  }
  for (size_t i = 0; i < config_.schedule.size(); ++i) {
    const SliceWindow& w = config_.schedule[i];
    for (cluster::SliceId s = w.first; s < w.end; ++s) {
      windowed[s] = true;
      if (w.join == core::Duration::zero()) present[s] = true;
    }
    if (w.join > core::Duration::zero()) {
      ctx_->sim.schedule_in(w.join, core::kBandPolicy, h_window_, i, 1);
    }
  }
  for (cluster::SliceId s = 0; s < n; ++s) {
    if (windowed[s] && !present[s]) group_->start_absent(s, s + 1);
  }
}

void ElasticDataParallel::on_window(uint64_t index, bool join) {
  if (done_) return;
  const SliceWindow& w = config_.schedule.at(index);
  ctx_->log(join ? "slices_join" : "slices_leave", {{"first", w.first}, {"end", w.end}});
  if (!config_.scheduled_resize) {
    group_->set_present(w.first, w.end, join);  // calls on_group_change
    return;
  }
  // The synchronous resize: the checkpoint it writes holds the steps done
  // before the stop; one pause covers the four costs. A group already paused
  // (a failure) or restarting pays it from now; a group down stays down.
  take_checkpoint();
  group_->set_present(w.first, w.end, join);
  if (group_->mode() == ElasticGroup::Mode::kReconfiguring) {
    group_->pause(config_.scheduled_resize->total());
    ctx_->log("scheduled_resize", {{"pause_s", config_.scheduled_resize->total().seconds_f()},
                                   {"slices", group_->active_slices()}});
  }
}

void ElasticDataParallel::take_checkpoint() {
  const core::SimTime now = ctx_->sim.now();
  if (group_->mode() != ElasticGroup::Mode::kRunning) return;
  ledger_.advance(now);
  checkpoint_ = {group_->steps(now), group_->tokens(now),
                 ledger_.total(Category::kProductive) - group_->in_flight()};
  ++checkpoints_;
  report_to_loss(checkpoint_.steps, checkpoint_.tokens);
}

void ElasticDataParallel::on_checkpoint() {
  take_checkpoint();
  ctx_->sim.schedule_in(config_.checkpoint_interval, core::kBandPolicy, h_checkpoint_);
}

void ElasticDataParallel::schedule_target() {
  ctx_->sim.cancel(target_event_);
  if (!ctx_->job.target_tokens || done_ || group_->mode() != ElasticGroup::Mode::kRunning) return;
  const core::SimTime now = ctx_->sim.now();
  const double per_step = group_->active_slices() * ctx_->job.tokens_per_step /
                          (ctx_->layout().slices() - ctx_->layout().spare_slices());
  const double remaining = *ctx_->job.target_tokens - group_->tokens(now);
  const auto more = static_cast<uint64_t>(std::max(1.0, std::ceil(remaining / per_step)));
  if (auto t = group_->time_of_step(group_->steps(now) + more)) {
    target_event_ = ctx_->sim.schedule_at(*t, core::kBandPolicy, h_target_);
  }
}

void ElasticDataParallel::on_target() {
  const core::SimTime now = ctx_->sim.now();
  target_at_ = now;
  done_ = true;
  ctx_->log("target_reached", {{"tokens", group_->tokens(now)}});
  group_->hold();
  outages_.set_training(false, now);
  ctx_->sim.request_stop();
}

void ElasticDataParallel::refresh_split() {
  ChipTimeLedger::Split split{};
  group_->add_split(split);
  spares_->add_split(split);
  ledger_.set_split(ctx_->sim.now(), split);
}

// Lent-out scavenged slices are not the job's.
bool ElasticDataParallel::slice_allocated(cluster::SliceId s) const {
  return group_->contains(s) && group_->present(s);
}

bool ElasticDataParallel::slice_running(cluster::SliceId s) const {
  return !done_ && group_->slice_computing(s);
}

std::vector<cluster::SliceId> ElasticDataParallel::learner_slices(uint32_t k) const {
  GOODSIM_CHECK(k == 0);
  std::vector<cluster::SliceId> out;
  for (cluster::SliceId s = group_->first(); s < group_->end(); ++s) out.push_back(s);
  return out;
}

// Checkpointed progress is durable (a fallback restart never goes further
// back); it reaches the loss model stretch by stretch of constant batch, so
// a batch that grows and shrinks with scavenged capacity is discounted at
// each of its sizes (loss.md: eta_batch), not at their mean.
void ElasticDataParallel::report_to_loss(uint64_t steps, double tokens) {
  if (steps <= loss_reported_.steps) return;
  size_t used = 0;
  for (; used < batch_changes_.size() && batch_changes_[used].steps < steps; ++used) {
    report_stretch(batch_changes_[used].steps, batch_changes_[used].tokens);
  }
  batch_changes_.erase(batch_changes_.begin(), batch_changes_.begin() + static_cast<long>(used));
  report_stretch(steps, tokens);
}

void ElasticDataParallel::report_stretch(uint64_t steps, double tokens) {
  if (steps <= loss_reported_.steps) return;
  const uint64_t n = steps - loss_reported_.steps;
  if (ctx_->loss != nullptr) {
    ctx_->loss->on_inner_steps(0, n, (tokens - loss_reported_.tokens) / static_cast<double>(n));
  }
  loss_reported_ = {steps, tokens, 0};
}

void ElasticDataParallel::settle(core::SimTime end) {
  report_to_loss(group_->steps(end), group_->tokens(end));
}

void ElasticDataParallel::describe(output::Diagnostics& d, core::SimTime end) const {
  d.checkpoint_rule = "fixed";
  d.checkpoint_interval_s = config_.checkpoint_interval.seconds_f();
  d.checkpoints = checkpoints_;
  d.time_by_state = group_time_by_mode(*group_, end);
}

Progress ElasticDataParallel::progress(core::SimTime now) const {
  const bool running = group_->mode() == ElasticGroup::Mode::kRunning;
  return {group_->steps(now), group_->tokens(now), running ? group_->active_chips() : 0};
}

}  // namespace goodsim::models::policy
