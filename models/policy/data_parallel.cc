#include "models/policy/data_parallel.h"

#include <cmath>

namespace goodsim::models::policy {

DataParallelConfig DataParallelConfig::from_json(scenario::ObjectReader& r) {
  DataParallelConfig c;
  c.restart_time = r.duration("restart_time", core::Duration::minutes(5),
                              "detection + restart time once every slice is up again",
                              core::Duration::zero());
  return c;
}

void DataParallel::start(RunContext& ctx) {
  ctx_ = &ctx;
  ledger_ = ChipTimeLedger(ctx.layout().chips());
  restart_handler_ = ctx.sim.add_handler(ctx.policy_name + ".restart_done",
                                         [this](const core::Event&) { on_restart_done(); });
  if (ctx.job.target_tokens) {
    target_steps_ = static_cast<uint64_t>(std::ceil(*ctx.job.target_tokens / ctx.job.tokens_per_step));
  }
  const bool all_up = ctx.cluster.down_slices() == 0;
  state_ = all_up ? State::kRunning : State::kWaiting;
  segment_start_ = ctx.sim.now();
  outages_.start(all_up, ctx.sim.now());
  refresh_split(ctx.sim.now());
}

void DataParallel::on_cluster_change(const cluster::ClusterChange& change) {
  const bool all_up = ctx_->cluster.down_slices() == 0;
  const core::SimTime now = change.time;
  if (state_ == State::kRunning && !all_up) {
    close_segment(now, /*discard_partial=*/true);
    ctx_->log("job_stop", {{"steps", steps_}});
    enter(State::kWaiting, now);
  } else if (state_ == State::kRestarting && !all_up) {
    ctx_->sim.cancel(restart_event_);
    ctx_->log("restart_interrupted", nlohmann::json::object());
    enter(State::kWaiting, now);
  } else if (state_ == State::kWaiting && all_up) {
    restart_event_ = ctx_->sim.schedule_in(config_.restart_time, core::kBandPolicy, restart_handler_);
    ctx_->log("restart_begin", nlohmann::json::object());
    enter(State::kRestarting, now);
  } else {
    refresh_split(now);  // down-chip count changed within the same state
  }
}

void DataParallel::on_restart_done() {
  const core::SimTime now = ctx_->sim.now();
  segment_start_ = now;
  ctx_->log("job_resume", {{"steps", steps_}});
  enter(State::kRunning, now);
}

void DataParallel::enter(State s, core::SimTime now) {
  state_ = s;
  outages_.set_training(s == State::kRunning, now);
  refresh_split(now);
}

void DataParallel::refresh_split(core::SimTime now) {
  ChipTimeLedger::Split split{};
  const uint64_t down = ctx_->cluster.down_chips();
  const uint64_t healthy = chip_units(ledger_.chips() - down);
  split[static_cast<size_t>(Category::kDown)] = chip_units(down);
  const Category c = state_ == State::kRunning     ? Category::kProductive
                     : state_ == State::kRestarting ? Category::kReconfigure
                                                    : Category::kIdle;
  split[static_cast<size_t>(c)] += healthy;
  ledger_.set_split(now, split);
}

uint64_t DataParallel::steps_in_segment(core::SimTime now) const {
  if (state_ != State::kRunning) return 0;
  return static_cast<uint64_t>((now - segment_start_).ns() / ctx_->job.step_time.ns());
}

// Credits the completed steps of the running segment that ends at `now`; with
// `discard_partial` the unfinished step's chip-time becomes lost_work.
void DataParallel::close_segment(core::SimTime now, bool discard_partial) {
  const uint64_t k = steps_in_segment(now);
  if (target_steps_ && !target_at_ && steps_ + k >= *target_steps_) {
    target_at_ = segment_start_ + ctx_->job.step_time * static_cast<int64_t>(*target_steps_ - steps_);
  }
  steps_ += k;
  if (!discard_partial) return;
  ledger_.advance(now);
  const core::Duration partial = (now - segment_start_) - ctx_->job.step_time * static_cast<int64_t>(k);
  ledger_.move(Category::kProductive, Category::kLostWork,
               static_cast<ChipNanos>(partial.ns()) * chip_units(ledger_.chips()));
}

void DataParallel::finish(core::SimTime end) {
  if (state_ == State::kRunning) close_segment(end, /*discard_partial=*/false);
  state_ = State::kWaiting;  // no further progress is counted
  ledger_.advance(end);
  outages_.finish(end);
}

std::vector<cluster::SliceId> DataParallel::learner_slices(uint32_t k) const {
  GOODSIM_CHECK(k == 0);
  std::vector<cluster::SliceId> all(ctx_->layout().slices());
  for (cluster::SliceId s = 0; s < all.size(); ++s) all[s] = s;
  return all;
}

Progress DataParallel::progress(core::SimTime now) const {
  Progress p;
  p.steps = steps_ + steps_in_segment(now);
  p.tokens = static_cast<double>(p.steps) * ctx_->job.tokens_per_step;
  p.active_chips = state_ == State::kRunning ? ledger_.chips() - ctx_->cluster.down_chips() : 0;
  return p;
}

}  // namespace goodsim::models::policy
