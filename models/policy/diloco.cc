#include "models/policy/diloco.h"
#include "models/policy/learner_results.h"

#include "models/loss_tracker.h"
#include "models/policy/comm_model.h"

#include <algorithm>
#include <string>

namespace goodsim::models::policy {
namespace {

// Arrivals further away than this (a hundred years) are never scheduled.
constexpr double kNeverSeconds = 100.0 * 365 * 86400;

}  // namespace

Diloco::Diloco(DilocoConfig config) : config_(config) {}

void Diloco::register_handlers() {
  core::Simulation& sim = ctx_->sim;
  const std::string& n = ctx_->policy_name;
  // Handlers change several learners at once: group notifications are only
  // collected (busy_) and reacted to afterwards, in one drain().
  auto batch = [this](auto&& work) {
    busy_ = true;
    work();
    busy_ = false;
    drain();
  };
  h_arrive_ = sim.add_handler(n + ".arrive", [this, batch](const core::Event& e) {
    batch([&] { on_arrival(static_cast<uint32_t>(e.a)); });
  });
  h_comm_done_ = sim.add_handler(n + ".outer_done", [this, batch](const core::Event&) {
    batch([&] { finish_barrier(); });
  });
  h_retry_ = sim.add_handler(n + ".outer_retry", [this, batch](const core::Event&) {
    batch([&] { start_comm(); });
  });
}

void Diloco::start(RunContext& ctx) {
  ctx_ = &ctx;
  spares_.emplace(ctx.cluster);
  const cluster::Layout& l = ctx.layout();
  const uint32_t members = l.slices() - l.spare_slices();
  const uint32_t m = config_.learners != 0 ? config_.learners : l.sites();
  const auto ranges = place_learners(l, m, config_.placement);
  ledger_ = ChipTimeLedger(l.chips());
  schedule_.emplace(config_.inner_steps, config_.fragments);
  fragment_bytes_ = config_.transfer.bytes(ctx.job, config_.fragments);
  fragment_layers_ = config_.transfer.layers(ctx.job, config_.fragments);
  register_handlers();
  const double per_slice = ctx.job.tokens_per_step / members;
  learners_.resize(m);
  for (uint32_t k = 0; k < m; ++k) {
    Learner& lr = learners_[k];
    lr.group = std::make_unique<ElasticGroup>(
        ctx, ctx.policy_name + ".learner" + std::to_string(k), ranges[k].first, ranges[k].end,
        config_.elastic, per_slice, [this, k](ElasticGroup&) { on_group_change(k); });
    lr.ledger = ChipTimeLedger(lr.group->chips());
    lr.home = l.site_of(ranges[k].first);
  }
  for (Learner& lr : learners_) {
    lr.group->start();
    lr.logged_slices = lr.group->active_slices();
    lr.down = !up(lr);
    lr.dirty = true;
  }
  if (ctx.loss != nullptr) {
    // inner_steps <= kMaxInnerSteps (1e9): exact in 32 bits.
    ctx.loss->start({ctx.job.params, ctx.job.tokens_per_step, m,
                     static_cast<uint32_t>(config_.inner_steps), config_.fragments});
  }
  outages_.start(training(), now());
  drain();
}

void Diloco::on_cluster_change(const cluster::ClusterChange& change) {
  spares_->on_cluster_change(change);
  busy_ = true;
  for (Learner& lr : learners_) lr.group->on_cluster_change(change);
  busy_ = false;
  drain();
}

void Diloco::on_slowdown_change(const cluster::SlowdownChange& change) {
  busy_ = true;
  for (Learner& lr : learners_) {
    const bool touched = change.all_slices ||
                         std::any_of(change.slices.begin(), change.slices.end(), [&](auto s) {
                           return s >= lr.group->first() && s < lr.group->end();
                         });
    if (touched) lr.group->on_slowdown_change();
  }
  busy_ = false;
  drain();
}

void Diloco::on_group_change(uint32_t k) {
  learners_[k].dirty = true;
  log_resize(*ctx_, *learners_[k].group, learners_[k].logged_slices, k);
  drain();
}

// Reacts to every group change, then to the barrier, until nothing changes;
// reactions (hold, release) change groups again, so this loops. Splits and
// the outage state are refreshed once, at the end, at the current time.
void Diloco::drain() {
  if (busy_) return;
  busy_ = true;
  bool again = true;
  while (again) {
    for (uint32_t k = 0; k < learners_.size(); ++k) {
      while (learners_[k].dirty) {
        learners_[k].dirty = false;
        book_lost(k);
        observe(k);
      }
    }
    if (!done_) {
      rebalance();
      try_complete();
    }
    again = std::any_of(learners_.begin(), learners_.end(), [](auto& l) { return l.dirty; });
  }
  busy_ = false;
  refresh_split();
  outages_.set_training(training(), now());
}

void Diloco::book_lost(uint32_t k) {
  Learner& lr = learners_[k];
  const ChipNanos lost = lr.group->lost_work() - lr.lost_moved;
  if (lost > 0) move(k, Category::kProductive, Category::kLostWork, lost);
  lr.lost_moved = lr.group->lost_work();
}

void Diloco::observe(uint32_t k) {
  Learner& lr = learners_[k];
  if (done_) return;
  switch (lr.group->mode()) {
    case ElasticGroup::Mode::kDown:
      if (!lr.down) went_down(k);
      return;
    case ElasticGroup::Mode::kReconfiguring:
      lr.down = false;
      ctx_->sim.cancel(lr.arrival);
      return;
    case ElasticGroup::Mode::kHeld:
      // Every slice lost while waiting: the learner's state is gone. Once the
      // outer all-reduce has started its contribution is in flight and kept.
      if (lr.group->active_slices() < config_.elastic.min_slices && !(lr.arrived && comm_)) {
        lr.arrived = false;
        lr.group->release();
      }
      return;
    case ElasticGroup::Mode::kRunning: observe_running(k); return;
  }
}

void Diloco::observe_running(uint32_t k) {
  Learner& lr = learners_[k];
  lr.down = false;
  if (lr.pulling) {
    lr.pulling = false;
    lr.needs_pull = false;
  }
  if (lr.needs_pull) {
    lr.group->hold();
    if (lr.role == Role::kMember) start_pull(k);
    return;  // a dropped learner waits for the open barrier to complete
  }
  if (lr.role == Role::kMember && !lr.arrived) schedule_arrival(k);
}

void Diloco::went_down(uint32_t k) {
  Learner& lr = learners_[k];
  lr.down = true;
  lr.pulling = false;
  lr.needs_pull = true;
  lr.arrived = false;
  ctx_->sim.cancel(lr.arrival);
  ledger_.advance(now());
  lr.ledger.advance(now());
  const ChipNanos rolled = lr.ledger.total(Category::kProductive) - lr.base_productive;
  if (rolled > 0) move(k, Category::kProductive, Category::kLostWork, rolled);
  lr.group->rollback_to(lr.base_steps, lr.base_tokens);
  ++stats_.rollbacks;
  ctx_->log("learner_down", [&] {
    return nlohmann::json{{"learner", k}, {"to_step", lr.base_steps + lr.offset}};
  });
}

// drop_failed: a down member is excused from the open barrier while some
// member is up; if none is, a recovered dropped learner takes over.
void Diloco::rebalance() {
  if (!config_.drop_failed || comm_) return;
  auto member_up = [this] {
    return std::any_of(learners_.begin(), learners_.end(),
                       [this](const Learner& l) { return l.role == Role::kMember && up(l); });
  };
  if (!member_up()) {
    for (uint32_t k = 0; k < learners_.size(); ++k) {
      const Learner& lr = learners_[k];
      if (lr.role == Role::kDropped && lr.group->held()) {
        start_pull(k);
        break;
      }
    }
    if (!member_up()) return;
  }
  for (uint32_t k = 0; k < learners_.size(); ++k) {
    Learner& lr = learners_[k];
    if (lr.role != Role::kMember || up(lr)) continue;
    lr.role = Role::kDropped;
    lr.needs_pull = true;
    ++stats_.drops;
    ctx_->log("learner_dropped", [&] { return nlohmann::json{{"learner", k}, {"sync", sync_}}; });
  }
}

void Diloco::schedule_arrival(uint32_t k) {
  Learner& lr = learners_[k];
  const ElasticGroup& g = *lr.group;
  const uint64_t target = schedule_->step(sync_) - lr.offset;
  ctx_->sim.cancel(lr.arrival);
  const uint64_t done = g.steps(now());
  if (done >= target) {
    lr.arrival = ctx_->sim.schedule_at(now(), core::kBandPolicy, h_arrive_, k);
    return;
  }
  // A learner stalled by its own step (an unreachable WAN hop costs ten
  // years) never arrives: no event, and no overflow of the time of arrival.
  const double wait_s = static_cast<double>(target - done) * g.step_duration().seconds_f();
  if (wait_s > kNeverSeconds) return;
  if (auto t = g.time_of_step(target)) {
    // Rounding of the step clock may land a hair early; never schedule at now twice.
    const core::SimTime at = std::max(*t, now() + core::Duration::nanos(1));
    lr.arrival = ctx_->sim.schedule_at(at, core::kBandPolicy, h_arrive_, k);
  }
}

void Diloco::on_arrival(uint32_t k) {
  Learner& lr = learners_[k];
  lr.arrival = {};
  if (done_ || lr.group->mode() != ElasticGroup::Mode::kRunning) return;
  if (lr.group->steps(now()) + lr.offset < schedule_->step(sync_)) {
    schedule_arrival(k);
    return;
  }
  lr.arrived = true;
  if (!opened_) opened_ = now();
  lr.group->hold();
}

void Diloco::try_complete() {
  if (comm_) return;
  bool any = false;
  for (const Learner& lr : learners_) {
    if (lr.role != Role::kMember) continue;
    if (!lr.arrived) return;
    any = true;
  }
  if (!any) return;
  comm_ = true;
  start_comm();
}

void Diloco::start_comm() {
  std::vector<cluster::SiteId> sites;
  for (const Learner& lr : learners_) {
    if (lr.arrived) sites.push_back(lr.home);
  }
  const uint32_t fragment = schedule_->fragment(sync_);
  const auto t = outer_allreduce_time(*ctx_, sites, fragment_bytes_[fragment]);
  if (!t) {
    if (!partitioned_) ctx_->log("outer_partitioned", {{"sync", sync_}});
    partitioned_ = true;
    comm_event_ = ctx_->sim.schedule_in(kPartitionRetry, core::kBandPolicy, h_retry_);
    return;
  }
  partitioned_ = false;
  stats_.wan_bytes += wan_bytes_of(ring_flows(sites, fragment_bytes_[fragment]));
  const auto latency = outer_allreduce_time(*ctx_, sites, 0);
  comm_time_ = *t;
  comm_wait_ = exchange_stall(*ctx_, fragment_layers_[fragment], *t,
                              latency.value_or(core::Duration::zero()), config_.overlap_steps);
  // late_fragments skip: the members go on; the merged fragment, later than
  // tau steps, is applied at a later sync point.
  if (!config_.transfer.wait() && comm_wait_ > core::Duration::zero()) {
    comm_wait_ = core::Duration::zero();
    ++stats_.late_syncs;
  }
  if (comm_wait_ > core::Duration::zero()) {
    comm_event_ = ctx_->sim.schedule_in(comm_wait_, core::kBandPolicy, h_comm_done_);
  } else {
    finish_barrier();
  }
}

void Diloco::finish_barrier() {
  const uint64_t sync = sync_;
  const uint32_t fragment = schedule_->fragment(sync);
  const core::Duration open = now() - opened_.value_or(now());
  comm_ = false;
  partitioned_ = false;
  opened_.reset();
  synced_step_ = schedule_->step(sync);
  ++sync_;
  ++stats_.syncs;
  stats_.outer_steps += fragment == 0 ? 1 : 0;
  stats_.barrier_wait += open;
  stats_.comm_wait += comm_wait_;
  report_merge(fragment);
  uint32_t participants = 0;
  for (uint32_t k = 0; k < learners_.size(); ++k) {
    Learner& lr = learners_[k];
    if (!lr.arrived) continue;
    ++participants;
    lr.arrived = false;
    rebase(k);
    lr.group->release();
  }
  ctx_->log("barrier", [&] {
    return nlohmann::json{{"sync", sync}, {"step", synced_step_}, {"fragment", fragment},
                          {"learners", participants}, {"open_s", open.seconds_f()},
                          {"comm_s", comm_time_.seconds_f()}, {"wait_s", comm_wait_.seconds_f()}};
  });
  for (uint32_t k = 0; k < learners_.size(); ++k) {
    const Learner& lr = learners_[k];
    if (lr.role == Role::kDropped && lr.group->held()) start_pull(k);
  }
  check_target();
}

// The learner (held) takes the global model of the last completed barrier
// and trains from its step after the pull.
void Diloco::start_pull(uint32_t k) {
  Learner& lr = learners_[k];
  GOODSIM_CHECK(lr.group->held());
  const uint64_t local = lr.group->steps(now());
  GOODSIM_CHECK(synced_step_ >= local);
  lr.role = Role::kMember;
  lr.pulling = true;
  lr.offset = synced_step_ - local;
  rebase(k);
  const auto [d, from] = pull_time(k);
  if (from && *from != lr.home) stats_.wan_bytes += ctx_->job.gradient_bytes;
  ++stats_.pulls;
  ctx_->log("learner_rejoin", {{"learner", k}, {"step", synced_step_}, {"pull_s", d.seconds_f()}});
  lr.group->release_after(d);
}

std::pair<core::Duration, std::optional<cluster::SiteId>> Diloco::pull_time(uint32_t k) const {
  std::optional<core::Duration> best;
  std::optional<cluster::SiteId> from;
  for (uint32_t j = 0; j < learners_.size(); ++j) {
    const Learner& src = learners_[j];
    if (j == k || src.needs_pull || !up(src)) continue;
    const auto t = model_pull_time(*ctx_, src.home, learners_[k].home, ctx_->job.gradient_bytes);
    if (t && (!best || *t < *best)) {
      best = t;
      from = src.home;
    }
  }
  return {best.value_or(core::Duration::zero()), from};
}

double Diloco::wan_bytes(core::SimTime end) const {
  double total = stats_.wan_bytes;
  for (const Learner& lr : learners_) total += lr.group->wan_bytes(end);
  return total;
}

// Records the learner's state as holding the current global model.
// The learners at the barrier contribute their steps since they last held
// the global model to the loss model: token-weighted, never stale (all meet).
void Diloco::report_merge(uint32_t fragment) {
  if (ctx_->loss == nullptr) return;
  std::vector<loss::Contribution> contributions;
  for (uint32_t k = 0; k < learners_.size(); ++k) {
    const Learner& lr = learners_[k];
    const uint64_t steps = lr.group->steps(now());
    if (!lr.arrived || steps <= lr.base_steps) continue;
    const uint64_t n = steps - lr.base_steps;
    const double tokens = lr.group->tokens(now()) - lr.base_tokens;
    ctx_->loss->on_inner_steps(k, n, tokens / static_cast<double>(n));
    contributions.push_back({k, tokens * tokens / static_cast<double>(n), tokens, 0});
  }
  if (!contributions.empty()) ctx_->loss->on_merge(fragment, contributions);
}

void Diloco::rebase(uint32_t k) {
  Learner& lr = learners_[k];
  lr.ledger.advance(now());
  lr.base_steps = lr.group->steps(now());
  lr.base_tokens = lr.group->tokens(now());
  lr.base_productive = lr.ledger.total(Category::kProductive) - lr.group->in_flight();
}

void Diloco::move(uint32_t k, Category from, Category to, ChipNanos amount) {
  Learner& lr = learners_[k];
  ledger_.advance(now());
  lr.ledger.advance(now());
  lr.ledger.move(from, to, amount);
  ledger_.move(from, to, amount);
}

void Diloco::check_target() {
  if (!ctx_->job.target_tokens || done_) return;
  const Progress p = progress(now());
  if (p.tokens < *ctx_->job.target_tokens) return;
  done_ = true;
  target_at_ = now();
  ctx_->log("target_reached", {{"tokens", p.tokens}, {"step", synced_step_}});
  for (Learner& lr : learners_) {
    ctx_->sim.cancel(lr.arrival);
    const auto mode = lr.group->mode();
    if (mode == ElasticGroup::Mode::kRunning || mode == ElasticGroup::Mode::kReconfiguring) {
      lr.group->hold();
    }
  }
  ctx_->sim.cancel(comm_event_);
  ctx_->sim.request_stop();
}

void Diloco::refresh_split() {
  ChipTimeLedger::Split total{};
  for (Learner& lr : learners_) {
    ChipTimeLedger::Split s{};
    lr.group->add_split(s);
    lr.ledger.set_split(now(), s);
    add_split(total, s);
  }
  spares_->add_split(total);
  ledger_.set_split(now(), total);
}

bool Diloco::training() const {
  if (done_) return false;
  if (comm_ && !partitioned_) return true;
  return std::any_of(learners_.begin(), learners_.end(), [](const Learner& l) {
    return l.group->mode() == ElasticGroup::Mode::kRunning;
  });
}

void Diloco::finish(core::SimTime end) {
  ledger_.advance(end);
  for (Learner& lr : learners_) lr.ledger.advance(end);
  outages_.finish(end);
  ctx_->log("diloco_stats", {{"syncs", stats_.syncs}, {"outer_steps", stats_.outer_steps},
                             {"barrier_wait_s", stats_.barrier_wait.seconds_f()},
                             {"comm_wait_s", stats_.comm_wait.seconds_f()},
                             {"rollbacks", stats_.rollbacks}, {"drops", stats_.drops},
                             {"pulls", stats_.pulls}, {"late_syncs", stats_.late_syncs}});
}

std::vector<output::LearnerResult> Diloco::learner_results(core::SimTime end) const {
  std::vector<output::LearnerResult> out;
  for (uint32_t k = 0; k < learners_.size(); ++k) {
    const Learner& lr = learners_[k];
    output::LearnerResult r = group_learner_result(*lr.group, k, end);
    const double capacity = static_cast<double>(r.chips) * end.seconds_f();
    r.goodput = capacity > 0
                    ? std::min(1.0, lr.ledger.chip_seconds(Category::kProductive) / capacity)
                    : 0.0;
    r.steps = learner_step(k, end);
    r.tokens = lr.group->tokens(end);
    out.push_back(std::move(r));
  }
  return out;
}

uint64_t Diloco::learner_step(uint32_t k, core::SimTime t) const {
  const Learner& lr = learners_.at(k);
  return lr.group->steps(t) + lr.offset;
}

Progress Diloco::progress(core::SimTime t) const {
  Progress p;
  for (uint32_t k = 0; k < learners_.size(); ++k) {
    const ElasticGroup& g = *learners_[k].group;
    p.steps = std::max(p.steps, learner_step(k, t));
    p.tokens += g.tokens(t);
    if (g.mode() == ElasticGroup::Mode::kRunning) p.active_chips += g.active_chips();
  }
  return p;
}

bool Diloco::slice_allocated(cluster::SliceId s) const {
  return std::any_of(learners_.begin(), learners_.end(),
                     [s](const Learner& l) { return l.group->contains(s); });
}

bool Diloco::slice_running(cluster::SliceId s) const {
  return std::any_of(learners_.begin(), learners_.end(),
                     [s](const Learner& l) { return l.group->slice_computing(s); });
}

std::vector<cluster::SliceId> Diloco::learner_slices(uint32_t k) const {
  const ElasticGroup& g = learner(k);
  std::vector<cluster::SliceId> out;
  for (cluster::SliceId s = g.first(); s < g.end(); ++s) out.push_back(s);
  return out;
}

}  // namespace goodsim::models::policy
