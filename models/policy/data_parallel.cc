#include "models/policy/data_parallel.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "models/enum_choice.h"
#include "models/loss_tracker.h"
#include "models/policy/comm_model.h"

namespace goodsim::models::policy {

DataParallelConfig DataParallelConfig::from_json(scenario::ObjectReader& r) {
  DataParallelConfig c;
  c.restart_time = r.duration("restart_time", core::Duration::minutes(5),
                              "detection + restart once every member slice is up");
  c.swap_time = r.duration("swap_time", core::Duration::minutes(2),
                           "time to bring a warm standby (spare slice) into the job");
  c.during_restart = read_enum(
      r, "failure_during_restart", {{"absorb", DuringRestart::kAbsorb}, {"extend", DuringRestart::kExtend},
               {"restart", DuringRestart::kRestart}},
      c.during_restart,
      "a member failure during the restart: absorb (the restart goes on, the member is "
      "swapped in parallel), extend (and the restart ends restart_extension later) or "
      "restart (the restart begins again once every member is up)");
  c.restart_extension = r.duration("restart_extension", core::Duration::minutes(1),
                                   "extend: added to the restart per member failure during it");
  if (auto n = r.optional_count("standbys", "warm standbys among the spare slices, swapped in "
                                "after swap_time; the other spares take host_selection_time "
                                "(default: every spare is warm)", 0, UINT32_MAX)) {
    c.standbys = static_cast<uint32_t>(*n);
  }
  c.host_selection_time = r.duration("host_selection_time", core::Duration::minutes(3),
                                     "time to bring in a spare slice that is not a warm standby");
  c.swap_overlaps_restart = r.boolean("swap_overlaps_restart", false,
                                      "begin the restart while spares are swapped in; resume "
                                      "when both are done");
  c.checkpoint = CheckpointConfig::from_json(r);
  return c;
}

DataParallel::DataParallel(DataParallelConfig config) : config_(config) {}

void DataParallel::register_handlers() {
  core::Simulation& sim = ctx_->sim;
  const std::string& n = ctx_->policy_name;
  h_restart_ = sim.add_handler(n + ".restart_done", [this](const core::Event&) { on_restart_done(); });
  h_swap_ = sim.add_handler(n + ".swap_done", [this](const core::Event&) { on_swap_done(); });
  h_due_ = sim.add_handler(n + ".checkpoint_due", [this](const core::Event&) { on_checkpoint_due(); });
  h_written_ = sim.add_handler(n + ".checkpoint_written",
                               [this](const core::Event&) { on_checkpoint_written(); });
  h_commit_ = sim.add_handler(n + ".async_committed",
                              [this](const core::Event&) { on_async_committed(); });
  h_target_ = sim.add_handler(n + ".target", [this](const core::Event&) { on_target(); });
}

void DataParallel::start(RunContext& ctx) {
  ctx_ = &ctx;
  const cluster::Layout& layout = ctx.layout();
  const uint32_t spares = layout.spare_slices();
  pool_.emplace(layout.slices() - spares, spares, ctx.cluster);
  warm_standbys_ = std::min(spares, config_.standbys.value_or(spares));
  ledger_ = ChipTimeLedger(layout.chips());
  register_handlers();
  trace_track_ = ctx.trace_track("job");
  if (ctx.loss != nullptr) {
    ctx.loss->start({ctx.job.params, ctx.job.tokens_per_step, 1, 0, 1});
  }
  if (ctx.job.target_tokens) {
    const double per_step = ctx.job.tokens_per_step;
    target_steps_ = static_cast<uint64_t>(std::ceil(*ctx.job.target_tokens / per_step));
  }
  const bool ready = pool_->down_members() == 0;
  outages_.start(ready, now());
  if (ready) {
    begin_running();
  } else {
    enter(State::kWaiting);
  }
}

const char* DataParallel::state_name(State s) {
  static constexpr std::array<const char*, kStateCount> kNames = {
      "training", "checkpoint", "waiting", "restart", "done"};  // in State order
  return name_in_order(kNames, s);
}

void DataParallel::enter(State s) {
  state_ = s;
  state_times_.enter(static_cast<size_t>(s), now());
  ctx_->trace_state(trace_track_, state_name(s));
  if (s == State::kCheckpoint) {
    outages_.set_checkpointing(now());
  } else {
    outages_.set_training(s == State::kRunning, now());
  }
  refresh_split();
}

void DataParallel::begin_running() {
  clock_.start(now(), pace());
  open_wan_segment();
  running_ = running_split(clock_.step());
  charge_.start(now(), running_.productive);
  enter(State::kRunning);
  schedule_step_events();
}

void DataParallel::schedule_step_events() {
  ctx_->sim.cancel(due_event_);
  ctx_->sim.cancel(target_event_);
  if (const uint64_t every = checkpoint_every_steps(); every > 0) {
    interval_steps_ = every;
    if (auto t = clock_.time_of_step(now(), committed_.steps + every)) {
      due_event_ = ctx_->sim.schedule_at(*t, core::kBandPolicy, h_due_);
    }
  }
  if (target_steps_ > 0 && !target_at_) {
    if (auto t = clock_.time_of_step(now(), target_steps_)) {
      target_event_ = ctx_->sim.schedule_at(*t, core::kBandPolicy, h_target_);
    }
  }
}

void DataParallel::stop_running(bool lose_uncommitted) {
  ctx_->sim.cancel(due_event_);
  ctx_->sim.cancel(target_event_);
  ledger_.advance(now());
  ChipNanos in_flight = 0;
  if (clock_.running()) {
    in_flight = charge_.stop(now(), clock_);
    wan_.close(clock_.steps(now()));
    clock_.stop(now());
    running_ = RunningSplit{};
  }
  if (!lose_uncommitted) return;
  ChipNanos lost = 0;
  if (config_.checkpoint.interval == CheckpointConfig::Interval::kPerfect) {
    // Only the step in flight is lost: the productive chip-time charged for it.
    lost = in_flight;
    committed_ = snapshot();
    report_to_loss(committed_.steps);
  } else {
    lost = ledger_.total(Category::kProductive) - committed_.productive;
  }
  ledger_.move(Category::kProductive, Category::kLostWork, lost);
  clock_.rollback_to(committed_.steps);
  ctx_->log("rollback", [&] { return nlohmann::json{{"to_step", committed_.steps}}; });
}

void DataParallel::on_cluster_change(const cluster::ClusterChange& change) {
  if (state_ == State::kDone) return refresh_split();
  bool member_lost = false;
  for (cluster::SliceId s : change.slices_flipped) {
    member_lost |= change.failed && pool_->is_member(s);
    if (!change.failed && !pool_->is_member(s)) refill_standby();
    pool_->on_flip(s, change.failed);
  }
  if (member_lost) {
    ++interruptions_;
    if (state_ == State::kRunning || state_ == State::kCheckpoint) {
      ctx_->sim.cancel(written_event_);
      ctx_->sim.cancel(commit_event_);
      in_flight_.reset();
      stop_running(/*lose_uncommitted=*/true);
      ctx_->log("job_stop", [&] { return nlohmann::json{{"steps", committed_.steps}}; });
    } else if (state_ == State::kRestarting) {
      if (config_.during_restart != DataParallelConfig::DuringRestart::kRestart) {
        absorb_during_restart();
        return refresh_split();
      }
      ctx_->sim.cancel(restart_event_);
      ctx_->log("restart_interrupted", [] { return nlohmann::json::object(); });
    }
    enter(State::kWaiting);
  }
  handle_member_failures();
  try_restart();
  refresh_split();
}

// Promotes an up spare for every down member; each swap takes swap_time.
void DataParallel::handle_member_failures() {
  if (state_ != State::kWaiting && state_ != State::kRestarting) return;
  // Down members in increasing order, each taking the lowest up spare: the
  // pool keeps both sorted, so this costs the swaps made, not the members.
  while (pool_->has_up_spare()) {
    const auto s = pool_->first_down_member();
    if (!s) break;
    const auto spare = pool_->replace(*s, ctx_->cluster);
    ++pending_swaps_;
    ctx_->log("spare_swap", [&] {
      return nlohmann::json{{"failed_slice", *s}, {"spare_slice", *spare}};
    });
    ctx_->sim.schedule_in(next_swap_time(), core::kBandPolicy, h_swap_);
  }
}

// A swap takes a warm standby while one is ready, else a host selection.
core::Duration DataParallel::next_swap_time() {
  if (!config_.standbys) return config_.swap_time;
  if (warm_standbys_ == 0) return config_.host_selection_time;
  --warm_standbys_;
  return config_.swap_time;
}

// A repaired spare is prepared as a warm standby while fewer are warm.
void DataParallel::refill_standby() {
  if (config_.standbys && warm_standbys_ < *config_.standbys) ++warm_standbys_;
}

// A member failed during the restart and the restart goes on: swap it in
// parallel (handle_member_failures runs in kRestarting too), and with
// `extend` push the end of the restart back.
void DataParallel::absorb_during_restart() {
  ctx_->log("restart_absorbed", [] { return nlohmann::json::object(); });
  if (config_.during_restart == DataParallelConfig::DuringRestart::kExtend) {
    ctx_->sim.cancel(restart_event_);
    restart_end_ += config_.restart_extension;
    restart_event_ = ctx_->sim.schedule_at(restart_end_, core::kBandPolicy, h_restart_);
  }
  handle_member_failures();
}

void DataParallel::try_restart() {
  if (state_ != State::kWaiting || pool_->down_members() > 0) return;
  if (pending_swaps_ > 0 && (restart_paid_ || !config_.swap_overlaps_restart)) return;
  if (restart_paid_) return on_restart_done();
  restart_end_ = now() + config_.restart_time;
  restart_event_ = ctx_->sim.schedule_at(restart_end_, core::kBandPolicy, h_restart_);
  ctx_->log("restart_begin", [] { return nlohmann::json::object(); });
  enter(State::kRestarting);
}

void DataParallel::on_swap_done() {
  --pending_swaps_;
  handle_member_failures();
  try_restart();
  refresh_split();
}

void DataParallel::on_restart_done() {
  if (pending_swaps_ > 0 || pool_->down_members() > 0) {
    // Failures absorbed by the restart are not swapped in yet: wait for them.
    restart_paid_ = true;
    enter(State::kWaiting);
    return;
  }
  restart_paid_ = false;
  ctx_->log("job_resume", [&] { return nlohmann::json{{"steps", committed_.steps}}; });
  begin_running();
}

void DataParallel::repace() {
  if (state_ != State::kRunning) return;
  ledger_.advance(now());
  const core::Duration step = pace();
  const RunningSplit next = running_split(step);
  charge_.repace(now(), clock_, next.productive);
  wan_.close(clock_.steps(now()));
  clock_.set_step(now(), step);
  open_wan_segment();
  running_ = next;
  refresh_split();
  schedule_step_events();
}

void DataParallel::on_checkpoint_due() {
  // The step that reaches the target may also be a checkpoint step: the
  // target wins, the run is over.
  if (target_steps_ > 0 && clock_.steps(now()) >= target_steps_) return on_target();
  stop_running(/*lose_uncommitted=*/false);
  in_flight_ = snapshot();
  written_event_ =
      ctx_->sim.schedule_in(config_.checkpoint.blocking_cost(), core::kBandPolicy, h_written_);
  enter(State::kCheckpoint);
}

void DataParallel::on_checkpoint_written() {
  if (config_.checkpoint.async) {
    commit_event_ = ctx_->sim.schedule_in(config_.checkpoint.write_time, core::kBandPolicy, h_commit_);
  } else {
    committed_ = *in_flight_;
    in_flight_.reset();
    ++checkpoints_;
    ctx_->log("checkpoint", {{"steps", committed_.steps}});
    report_to_loss(committed_.steps);
  }
  begin_running();
}

void DataParallel::on_async_committed() {
  committed_ = *in_flight_;
  in_flight_.reset();
  ++checkpoints_;
  report_to_loss(committed_.steps);
  ctx_->log("checkpoint", {{"steps", committed_.steps}});
  if (state_ == State::kRunning) schedule_step_events();
}

void DataParallel::on_target() {
  stop_running(/*lose_uncommitted=*/false);
  target_at_ = now();
  ctx_->log("target_reached", {{"steps", clock_.steps(now())}});
  enter(State::kDone);
  ctx_->sim.request_stop();
}

void DataParallel::describe(output::Diagnostics& d, core::SimTime end) const {
  static constexpr const char* kRules[] = {"perfect", "none", "fixed", "young", "daly"};
  d.checkpoint_rule = kRules[static_cast<size_t>(config_.checkpoint.interval)];
  if (interval_steps_ > 0) {
    d.checkpoint_interval_s =
        static_cast<double>(interval_steps_) * ctx_->job.step_time.seconds_f();
  }
  d.checkpoints = checkpoints_;
  for (size_t s = 0; s < kStateCount; ++s) {
    d.time_by_state.emplace_back(state_name(static_cast<State>(s)),
                                 state_times_.time(s, end).seconds_f());
  }
}

uint64_t DataParallel::checkpoint_every_steps() const {
  const CheckpointConfig& c = config_.checkpoint;
  if (c.interval == CheckpointConfig::Interval::kNone ||
      c.interval == CheckpointConfig::Interval::kPerfect || in_flight_) {
    return 0;
  }
  core::Duration interval = c.fixed_interval;
  if (c.interval != CheckpointConfig::Interval::kFixed) {
    // Online estimate: time elapsed per interruption so far (the horizon-free
    // fallback before the first is the elapsed time plus one day).
    const core::Duration elapsed = now().since_start();
    const core::Duration m = c.mtti ? *c.mtti
                             : interruptions_ > 0 ? elapsed / static_cast<int64_t>(interruptions_)
                                                  : elapsed + core::Duration::days(1);
    interval = c.interval == CheckpointConfig::Interval::kYoung ? young_interval(c.blocking_cost(), m)
                                                                : daly_interval(c.blocking_cost(), m);
  }
  const double steps = interval.seconds_f() / ctx_->job.step_time.seconds_f();
  return std::max<uint64_t>(1, static_cast<uint64_t>(std::llround(steps)));
}

core::Duration DataParallel::pace() const {
  const core::Duration base = ctx_->job.step_time;
  const core::Duration slowed = core::Duration::from_seconds(base.seconds_f() * member_slowdown());
  return slowed + comm_time();
}

double DataParallel::member_slowdown() const {
  double worst = 1.0;
  for (const auto& [first, end] : pool_->member_ranges()) {
    worst = std::max(worst, ctx_->cluster.slowdown().max_slowdown(first, end));
  }
  return worst;
}

RunningSplit DataParallel::running_split(core::Duration step) const {
  double excess = 0;
  for (const auto& [first, end] : pool_->member_ranges()) {
    excess += ctx_->cluster.slowdown().excess_slowdown(first, end);
  }
  return RunningSplit::of(chip_units(ctx_->layout().chips_per_slice()), pool_->wanted(),
                          pool_->wanted() + excess, member_slowdown(), ctx_->job.step_time, step);
}

// Every step of the segment now begun all-reduces across the members' sites.
void DataParallel::open_wan_segment() {
  wan_.open(clock_.steps(now()), dp_step_wan_bytes(*ctx_, pool_->members_per_site()));
}

core::Duration DataParallel::comm_time() const {
  return dp_step_comm(*ctx_, pool_->members_per_site());
}

DataParallel::Snapshot DataParallel::snapshot() const {
  return Snapshot{clock_.steps(now()), ledger_.total(Category::kProductive)};
}

void DataParallel::refresh_split() {
  ChipTimeLedger::Split split{};
  auto at = [&split](Category c) -> uint64_t& { return split[static_cast<size_t>(c)]; };
  const uint64_t chips = ledger_.chips();
  const uint64_t down = ctx_->cluster.down_chips();
  const uint64_t members_up = pool_->up_member_chips(ctx_->layout().chips_per_slice());
  at(Category::kDown) = chip_units(down);
  at(Category::kIdle) = chip_units(chips - down - members_up);
  const uint64_t units = chip_units(members_up);
  switch (state_) {
    case State::kRunning: running_.add_to(split); break;
    case State::kCheckpoint: at(Category::kCheckpoint) = units; break;
    case State::kRestarting: at(Category::kReconfigure) = units; break;
    case State::kWaiting:
      at(pending_swaps_ > 0 ? Category::kReconfigure : Category::kIdle) += units;
      break;
    case State::kDone: at(Category::kIdle) += units; break;
  }
  ledger_.set_split(now(), split);
}

bool DataParallel::slice_allocated(cluster::SliceId s) const { return pool_->is_member(s); }

// A blocking checkpoint write keeps the job's program running.
bool DataParallel::slice_running(cluster::SliceId s) const {
  return (state_ == State::kRunning || state_ == State::kCheckpoint) && pool_->is_member(s);
}

std::vector<cluster::SliceId> DataParallel::learner_slices(uint32_t k) const {
  GOODSIM_CHECK(k == 0);
  return pool_->member_list();
}

// Steps become durable when committed; with perfect checkpoints, as they
// complete. The loss model only ever sees durable steps.
void DataParallel::report_to_loss(uint64_t durable_steps) {
  if (ctx_->loss == nullptr || durable_steps <= loss_reported_steps_) return;
  ctx_->loss->on_inner_steps(0, durable_steps - loss_reported_steps_, ctx_->job.tokens_per_step);
  loss_reported_steps_ = durable_steps;
}

void DataParallel::flush_loss(core::SimTime t) {
  const bool perfect = config_.checkpoint.interval == CheckpointConfig::Interval::kPerfect;
  report_to_loss(perfect ? clock_.steps(t) : committed_.steps);
}

void DataParallel::settle(core::SimTime end) {
  if (clock_.running()) {
    wan_.close(clock_.steps(end));
    clock_.stop(end);
  }
  report_to_loss(clock_.steps(end));  // the run ends with the live model
}

Progress DataParallel::progress(core::SimTime t) const {
  Progress p;
  p.steps = clock_.steps(t);
  p.tokens = static_cast<double>(p.steps) * ctx_->job.tokens_per_step;
  p.active_chips =
      state_ == State::kRunning ? pool_->up_member_chips(ctx_->layout().chips_per_slice()) : 0;
  return p;
}

}  // namespace goodsim::models::policy
