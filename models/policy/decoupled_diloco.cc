#include "models/policy/decoupled_diloco.h"

#include <algorithm>
#include <cmath>

#include "models/loss_tracker.h"
#include "models/policy/diloco_plan.h"
#include "models/policy/learner_results.h"

namespace goodsim::models::policy {
namespace {

using State = DecoupledDilocoLearner::State;
using Mode = ElasticGroup::Mode;

// Histories longer than this are trimmed, and then again once twice as long
// as what the last trim kept: a learner that changes often pays O(1)
// amortized per change, not a trim at every change.
constexpr size_t kHistoryTrim = 16;

}  // namespace

DecoupledDiloco::DecoupledDiloco(DecoupledDilocoConfig config)
    : config_(std::move(config)), schedule_(config_.fragments, config_.inner_steps) {}

void DecoupledDiloco::create_learners() {
  const cluster::Layout& l = ctx_->layout();
  const uint32_t members = l.slices() - l.spare_slices();
  const double per_slice = ctx_->job.tokens_per_step / members;
  const auto ranges = place_learners(l, config_.learners, LearnerPlacement::kContiguous);
  for (uint32_t m = 0; m < config_.learners; ++m) {
    learners_.push_back(std::make_unique<DecoupledDilocoLearner>(
        *ctx_, m, ranges[m].first, ranges[m].end, config_.elastic, per_slice,
        [this, m](ElasticGroup&) { on_group_change(m); }));
  }
}

void DecoupledDiloco::start(RunContext& ctx) {
  ctx_ = &ctx;
  ledger_ = ChipTimeLedger(ctx.layout().chips());
  spares_.emplace(ctx.cluster);
  create_learners();
  paces_.assign(config_.learners, Pace{});  // a group's start may call its listener
  trimmed_to_.assign(config_.learners, 0);
  transfers_ = std::make_unique<FragmentTransfers>(ctx, config_);
  const DecoupledDilocoParts parts{ctx, config_, learners_, schedule_};
  gate_ = std::make_unique<DecoupledDilocoGate>(parts, rounds_, *transfers_);
  syncer_ = std::make_unique<DecoupledDilocoSyncer>(parts, rounds_, *transfers_, *gate_);
  h_window_ = ctx.sim.add_handler(ctx.policy_name + ".window", [this](const core::Event& e) {
    on_window(e.a, e.b != 0);
  });
  h_target_ = ctx.sim.add_handler(ctx.policy_name + ".target",
                                  [this](const core::Event&) { on_target(); });
  gate_->start();  // its handler after the syncer's, the windows' and the target's
  for (auto& l : learners_) {
    l->group().start();
    l->set_state(l->group().mode() == Mode::kDown ? State::kDown : State::kLive);
    l->logged_slices() = l->group().active_slices();
    l->record();
    paces_[l->index()] = pace_of(l->index());
  }
  outages_.start(any_running(), now());
  if (ctx.loss != nullptr) {
    ctx.loss->start({ctx.job.params, ctx.job.tokens_per_step, config_.learners,
                     static_cast<uint32_t>(config_.inner_steps), config_.fragments});
  }
  if (config_.fast_forward) syncer_->enable_fast_forward();
  syncer_->start();
  schedule_windows();
  for (uint32_t m = 0; m < config_.learners; ++m) gate_->update(m);
  refresh_split();
  schedule_target();
}

// Learners with windows start parked unless a window opens at t = 0; every
// join and leave is one event. Leaves are scheduled first, so a learner whose
// window ends when its next one begins leaves, then joins again.
void DecoupledDiloco::schedule_windows() {
  std::vector<bool> windowed(config_.learners, false), present(config_.learners, false);
  for (size_t i = 0; i < config_.schedule.size(); ++i) {
    ctx_->sim.schedule_in(config_.schedule[i].leave, core::kBandPolicy, h_window_, i, 0);
  }
  for (size_t i = 0; i < config_.schedule.size(); ++i) {
    const ScavengeWindow& w = config_.schedule[i];
    windowed[w.learner] = true;
    if (w.join == core::Duration::zero()) {
      present[w.learner] = true;
    } else {
      ctx_->sim.schedule_in(w.join, core::kBandPolicy, h_window_, i, 1);
    }
  }
  for (uint32_t m = 0; m < config_.learners; ++m) {
    if (windowed[m] && !present[m]) park(m);
  }
}

void DecoupledDiloco::on_cluster_change(const cluster::ClusterChange& change) {
  spares_->on_cluster_change(change);  // before the groups' listeners refresh the split
  const cluster::Layout::SliceSpan span = ctx_->layout().slice_span(change.domain, change.id);
  if (!done_) {
    // A group whose slices the unit misses ignores the change: not asked. A
    // group asked calls its listener, which refreshes its part of the split.
    for (auto& l : learners_) {
      ElasticGroup& g = l->group();
      if (g.first() < span.end && span.first < g.end()) g.on_cluster_change(change);
    }
  }
  publish_split();  // the spares' part
}

void DecoupledDiloco::on_slowdown_change(const cluster::SlowdownChange& change) {
  if (done_) return;
  for (auto& l : learners_) {
    const ElasticGroup& g = l->group();
    const bool touched =
        change.all_slices || std::any_of(change.slices.begin(), change.slices.end(),
                                         [&g](cluster::SliceId s) {
                                           return s >= g.first() && s < g.end();
                                         });
    if (touched) l->group().on_slowdown_change();
  }
}

DecoupledDiloco::Pace DecoupledDiloco::pace_of(uint32_t m) const {
  const DecoupledDilocoLearner& l = *learners_[m];
  return {l.state(), l.group().mode(), l.group().active_slices(), l.group().clock()};
}

// The group of learner m changed (its listener).
void DecoupledDiloco::on_group_change(uint32_t m) {
  if (done_) return;
  ledger_.advance(now());
  book_group_lost(m);
  learners_[m]->record();
  log_resize(*ctx_, learners_[m]->group(), learners_[m]->logged_slices(), m);
  follow_state(m);
  // A change that moved neither state, mode, size nor pace (a slice repaired
  // into the waiting list, a chip of a slice already down) changes no
  // prediction: only the chips' split.
  const Pace pace = pace_of(m);
  if (pace == paces_[m]) {
    trim_history(m);
    return refresh_split(m);
  }
  paces_[m] = pace;
  changed(m);
}

// Moves learner m's own state along with its group's mode.
void DecoupledDiloco::follow_state(uint32_t m) {
  DecoupledDilocoLearner& l = *learners_[m];
  const Mode mode = l.group().mode();
  switch (l.state()) {
    case State::kParked: return;
    case State::kLive:
      if (mode == Mode::kDown) went_down(m);
      // Every slice lost while waiting at a sync point: down, like in training.
      if (mode == Mode::kHeld && l.group().active_slices() < config_.elastic.min_slices) {
        l.group().release();  // goes kDown; calls on_group_change
      }
      return;
    case State::kDown:
      if (mode == Mode::kReconfiguring) begin_rejoin(m);
      return;
    case State::kRejoining:
      if (mode == Mode::kDown) {
        l.set_state(State::kDown);
      } else if (mode == Mode::kReconfiguring && l.rejoin_until() > now()) {
        l.group().pause(l.rejoin_until() - now());  // the pull goes on
        l.record();
      } else if (mode == Mode::kRunning) {
        l.set_state(State::kLive);
        syncer_->on_rejoin(m, l.peer());
        if (ctx_->loss != nullptr) ctx_->loss->on_rejoin(m);
        ctx_->log("learner_rejoined", [&] {
          return nlohmann::json{{"learner", m}, {"schedule_step", l.sched_now()}};
        });
      }
      return;
  }
}

// Everything that depends on learner m's mode, pace or clock.
void DecoupledDiloco::changed(uint32_t m) {
  syncer_->on_learner_change(m);
  gate_->update(m);
  trim_history(m);
  outages_.set_training(any_running(), now());
  refresh_split(m);
  schedule_target();
}

void DecoupledDiloco::trim_history(uint32_t m) {
  const size_t size = learners_[m]->history().size();
  if (size <= std::max(kHistoryTrim, 2 * trimmed_to_[m])) return;
  syncer_->trim(m);
  trimmed_to_[m] = learners_[m]->history().size();
}

void DecoupledDiloco::book_group_lost(uint32_t m) {
  DecoupledDilocoLearner& l = *learners_[m];
  const ChipNanos lost = l.group().lost_work() - l.lost_moved();
  if (lost > 0) ledger_.move(Category::kProductive, Category::kLostWork, lost);
  l.lost_moved() = l.group().lost_work();
}

// The steps learner m computed since its last report of any fragment (or
// its last rejoin) are gone: the productive chip-time charged for them
// becomes lost_work. REQUIRES: the ledger advanced to now.
void DecoupledDiloco::book_unsynced(uint32_t m) {
  DecoupledDilocoLearner& l = *learners_[m];
  const int64_t last = schedule_.latest_any(l.sched_now());
  const uint64_t own = l.own_now();
  const uint64_t from = std::max<uint64_t>(
      l.sync_floor(), last > 0 ? l.own_of(last) : 0);
  if (own <= from) return;
  const double tokens = l.tokens_at(own) - l.tokens_at(from);
  const ChipNanos chip_time = l.kept_between(from, own);
  ledger_.move(Category::kProductive, Category::kLostWork, chip_time);
  l.add_lost_unsynced(chip_time);
  l.add_lost_tokens(tokens);
  ctx_->log("learner_lost_work", [&] {
    return nlohmann::json{{"learner", m}, {"steps", own - from}, {"tokens", tokens}};
  });
}

void DecoupledDiloco::went_down(uint32_t m) {
  learners_[m]->set_state(State::kDown);
  leave_loss(m);
  book_unsynced(m);
  syncer_->on_learner_down(m);
  ctx_->log("learner_down", [&] { return nlohmann::json{{"learner", m}}; });
}

// Time for learner m to pull its state, and from whom (nullopt: the syncer).
core::Duration DecoupledDiloco::state_pull(uint32_t m, std::optional<uint32_t>& peer) const {
  const double bytes = config_.resolved_state_bytes(ctx_->job);
  const cluster::SiteId to = learners_[m]->site();
  std::optional<core::Duration> best;
  for (uint32_t k = 0; k < learners_.size(); ++k) {
    if (k == m || !learners_[k]->live()) continue;
    const auto t = model_pull_time(*ctx_, learners_[k]->site(), to, bytes);
    if (t && (!best || *t < *best)) {
      best = t;
      peer = k;
    }
  }
  if (best) return *best;
  peer.reset();
  // No live peer: parameters from the syncer (optimizer state assumed kept
  // with them); unreachable too: reloaded locally.
  return model_pull_time(*ctx_, 0, to, bytes).value_or(core::Duration::zero());
}

// The state pull's bytes count when they come from another site: a peer's, or
// the syncer's (site 0) when no peer is live and the syncer is reachable.
void DecoupledDiloco::count_pull_bytes(uint32_t m, std::optional<uint32_t> peer) {
  const cluster::SiteId to = learners_[m]->site();
  const cluster::SiteId syncer = FragmentTransfers::kSyncerSite;
  const cluster::SiteId from = peer ? learners_[*peer]->site() : syncer;
  if (from == to || (!peer && !ctx_->network.route(syncer, to).reachable)) return;
  pull_wan_bytes_ += config_.resolved_state_bytes(ctx_->job);
}

double DecoupledDiloco::wan_bytes(core::SimTime end) const {
  double total = syncer_->stats().wan_bytes + pull_wan_bytes_;
  for (const auto& l : learners_) total += l->group().wan_bytes(end);
  return total;
}

void DecoupledDiloco::begin_rejoin(uint32_t m) {
  DecoupledDilocoLearner& l = *learners_[m];
  std::optional<uint32_t> peer;
  const core::Duration pull = state_pull(m, peer);
  count_pull_bytes(m, peer);
  const core::Duration cost = config_.rejoin_overhead + pull;
  l.set_state(State::kRejoining);
  l.set_peer(peer);
  l.set_rejoin_until(now() + cost);
  l.group().pause(cost);
  l.record();
  ctx_->log("learner_rejoin", [&] {
    return nlohmann::json{{"learner", m},
                          {"pull_s", pull.seconds_f()},
                          {"peer", peer ? static_cast<int64_t>(*peer) : -1}};
  });
}

void DecoupledDiloco::on_window(uint64_t index, bool join) {
  if (done_) return;
  const uint32_t m = config_.schedule.at(index).learner;
  ledger_.advance(now());
  if (join) {
    unpark(m);
  } else {
    park(m);
  }
  ctx_->log(join ? "learner_join" : "learner_leave", {{"learner", m}});
}

void DecoupledDiloco::park(uint32_t m) {
  DecoupledDilocoLearner& l = *learners_[m];
  if (l.state() == State::kParked) return;
  if (l.state() == State::kLive) {
    leave_loss(m);
    book_unsynced(m);
  }
  l.set_state(State::kParked);
  syncer_->on_learner_down(m);
  l.group().hold();  // calls on_group_change: books the step in flight
}

void DecoupledDiloco::unpark(uint32_t m) {
  DecoupledDilocoLearner& l = *learners_[m];
  if (l.state() != State::kParked) return;
  if (l.group().active_slices() >= config_.elastic.min_slices) {
    begin_rejoin(m);  // pause() ends the hold
    changed(m);
  } else {
    l.set_state(State::kDown);
    l.group().release();  // goes kDown; calls on_group_change
  }
}

void DecoupledDiloco::leave_loss(uint32_t m) {
  if (ctx_->loss == nullptr) return;
  learners_[m]->report_loss_steps();
  ctx_->loss->on_leave(m);
}

void DecoupledDiloco::flush_loss(core::SimTime) {
  for (auto& l : learners_) l->report_loss_steps();
}

// A partition changes WAN costs and who the syncer can reach.
void DecoupledDiloco::on_network_change() {
  if (done_) return;
  for (auto& l : learners_) l->group().on_slowdown_change();
  for (uint32_t m = 0; m < learners_.size(); ++m) {
    syncer_->on_learner_change(m);
    gate_->update(m);
  }
}

bool DecoupledDiloco::any_running() const {
  return std::any_of(learners_.begin(), learners_.end(), [](const auto& l) { return l->running(); });
}

double DecoupledDiloco::kept_tokens() const {
  double sum = 0;
  for (const auto& l : learners_) sum += l->kept_tokens();
  return sum;
}

void DecoupledDiloco::refresh_split() {
  splits_.resize(learners_.size());
  learners_split_ = {};
  for (uint32_t m = 0; m < learners_.size(); ++m) {
    splits_[m] = learner_split(m);
    add_split(learners_split_, splits_[m]);
  }
  publish_split();
}

void DecoupledDiloco::refresh_split(uint32_t m) {
  if (splits_.size() != learners_.size()) return refresh_split();
  const ChipTimeLedger::Split next = learner_split(m);
  for (size_t c = 0; c < next.size(); ++c) {
    learners_split_[c] = learners_split_[c] - splits_[m][c] + next[c];
  }
  splits_[m] = next;
  publish_split();
}

ChipTimeLedger::Split DecoupledDiloco::learner_split(uint32_t m) const {
  ChipTimeLedger::Split split{};
  const DecoupledDilocoLearner& l = *learners_[m];
  const ElasticGroup& g = l.group();
  if (l.state() == State::kParked) {
    split[static_cast<size_t>(Category::kDown)] = chip_units(g.down_chips());
    split[static_cast<size_t>(Category::kIdle)] = chip_units(g.chips() - g.down_chips());
  } else {
    g.add_split(split);
  }
  return split;
}

void DecoupledDiloco::publish_split() {
  ChipTimeLedger::Split split = learners_split_;
  spares_->add_split(split);
  ledger_.set_split(now(), split);
}

ChipTimeLedger::Split DecoupledDiloco::recount_split() const {
  ChipTimeLedger::Split split{};
  SpareSlices(ctx_->cluster).add_split(split);  // counted afresh
  for (uint32_t m = 0; m < learners_.size(); ++m) add_split(split, learner_split(m));
  return split;
}

// One event at the predicted time the kept tokens reach the target, at the
// current paces; re-predicted after every change and when it falls short.
void DecoupledDiloco::schedule_target() {
  ctx_->sim.cancel(target_event_);
  if (!ctx_->job.target_tokens || done_) return;
  const double remaining = *ctx_->job.target_tokens - kept_tokens();
  double rate = 0;
  core::Duration soonest = core::Duration::max();
  for (const auto& l : learners_) {
    if (!l->running()) continue;
    const ElasticGroup& g = l->group();
    rate += g.active_slices() * l->tokens_per_slice_step() / g.clock().step().seconds_f();
    if (auto t = l->time_of_own(l->own_now() + 1)) soonest = std::min(soonest, *t - now());
  }
  if (remaining <= 0) {
    target_event_ = ctx_->sim.schedule_in(core::Duration::zero(), core::kBandPolicy, h_target_);
  } else if (rate > 0) {
    const core::Duration eta = core::Duration::from_seconds(remaining / rate);
    target_event_ = ctx_->sim.schedule_in(std::max(eta, soonest), core::kBandPolicy, h_target_);
  }
}

void DecoupledDiloco::on_target() {
  if (kept_tokens() < *ctx_->job.target_tokens) return schedule_target();
  done_ = true;
  target_at_ = now();
  syncer_->stop();
  gate_->stop();
  ctx_->log("target_reached", {{"tokens", kept_tokens()}});
  ctx_->sim.request_stop();
}

// A parked learner (its scavenged capacity is away) holds no slices.
bool DecoupledDiloco::slice_allocated(cluster::SliceId s) const {
  return std::any_of(learners_.begin(), learners_.end(), [s](const auto& l) {
    return l->group().contains(s) && l->state() != DecoupledDilocoLearner::State::kParked;
  });
}

bool DecoupledDiloco::slice_running(cluster::SliceId s) const {
  return std::any_of(learners_.begin(), learners_.end(), [s](const auto& l) {
    return l->running() && l->group().slice_computing(s);
  });
}

std::vector<cluster::SliceId> DecoupledDiloco::learner_slices(uint32_t k) const {
  const ElasticGroup& g = learners_.at(k)->group();
  std::vector<cluster::SliceId> out;
  for (cluster::SliceId s = g.first(); s < g.end(); ++s) out.push_back(s);
  return out;
}

void DecoupledDiloco::log_summary() const {
  const SyncerStats& s = syncer_->stats();
  ctx_->log("syncer_summary",
            {{"rounds", s.rounds}, {"mean_quorum", s.mean_quorum()}, {"max_quorum", s.quorum_max},
             {"mean_contributors", s.mean_contributors()}, {"max_staleness", s.staleness_max},
             {"mean_staleness", s.mean_staleness()}, {"grace_wait_s", s.grace_wait.seconds_f()},
             {"late_arrivals", s.late}, {"max_lateness_s", s.lateness_max.seconds_f()},
             {"tokens_merged", s.tokens_merged}, {"rejoins", s.rejoins},
             {"clock_jumps", s.clock_jumps}, {"stalls", gate_->stalls()},
             {"stall_s", gate_->stall_time().seconds_f()}});
}

void DecoupledDiloco::finish(core::SimTime end) {
  ledger_.advance(end);
  outages_.finish(end);
  log_summary();
}

Progress DecoupledDiloco::progress(core::SimTime t) const {
  Progress p;
  double tokens = 0;
  for (const auto& l : learners_) {
    tokens += l->group().tokens(t) - l->lost_tokens();
    if (l->running()) p.active_chips += l->group().active_chips();
  }
  p.tokens = tokens;
  p.steps = static_cast<uint64_t>(std::floor(tokens / ctx_->job.tokens_per_step + 1e-9));
  return p;
}

}  // namespace goodsim::models::policy
