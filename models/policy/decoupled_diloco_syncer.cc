#include "models/policy/decoupled_diloco_syncer.h"

#include <algorithm>

#include "models/loss_tracker.h"

namespace goodsim::models::policy {

DecoupledDilocoSyncer::DecoupledDilocoSyncer(const DecoupledDilocoParts& parts,
                                             FragmentRounds& rounds, FragmentTransfers& transfers,
                                             DecoupledDilocoGate& gate)
    : ctx_(parts.ctx), config_(parts.config), learners_(parts.learners),
      schedule_(parts.schedule), rounds_(rounds), transfers_(transfers), gate_(gate),
      count_(static_cast<uint32_t>(learners_.size())),
      merge_(schedule_, config_.overlap_steps, learners_),
      grace_(config_.overlap_steps, config_.gamma, config_.ema_weight) {
  handler_ = ctx_.sim.add_handler(ctx_.policy_name + ".syncer_round", [this](const core::Event& e) {
    if (e.a == kWake) return wake();
    on_event(static_cast<uint32_t>(e.a));
  });
  trace_track_ = ctx_.trace_track("syncer");
}

// Tokens and weights only for their readers: the loss model, the event log
// and a round observer (statistics.tokens_merged is 0 without them).
void DecoupledDilocoSyncer::start() {
  merge_.set_count_tokens(ctx_.loss != nullptr || ctx_.events != nullptr || observer_);
  std::vector<uint64_t> first(config_.fragments);
  for (uint32_t p = 0; p < config_.fragments; ++p) first[p] = schedule_.first_round(p);
  rounds_.start(first, count_, now(), config_.grace);
  ready_steps_.assign(size_t{config_.fragments} * count_, ReadyStep{});
  scratch_.reserve(count_);
  stats_.learner_contributions.assign(count_, 0);
  stats_.learner_quorum.assign(count_, 0);
  stats_.learner_staleness_sum.assign(count_, 0);
  merged_.reserve(count_);
  for (uint32_t p = 0; p < config_.fragments; ++p) {
    for (uint32_t m = 0; m < count_; ++m) update_ready(p, m);
    reschedule(p);
  }
}

// The first report of learner m that counts for the open round: after the
// last one merged, and of this round or a later one.
void DecoupledDilocoSyncer::update_ready(uint32_t p, uint32_t m) {
  const DecoupledDilocoLearner& l = *learners_[m];
  const FragmentRounds::Fragment& f = rounds_.fragment(p);
  // A learner that is not running and short of the open round's report step
  // (c >= that step) makes no report: no need to find it.
  if (!l.running() && l.sched_now() < schedule_.round_step(p, f.round)) {
    return rounds_.set_ready(p, m, kNever);
  }
  const ReadyStep& step = ready_step(p, m);
  const int64_t c = step.c;
  const uint64_t own = step.own;
  core::SimTime ready = kNever;  // partitioned (its reports cannot arrive) or not running
  if (!reachable(l)) {
  } else if (c <= l.sched_now()) {
    const auto made = l.time_of_own(own);
    ready = std::max(f.opened, made.value_or(f.opened));
  } else if (l.running()) {
    ready = l.time_of_own(own).value_or(kNever);
  }
  rounds_.set_ready(p, m, ready);
}

// The key's inputs change at merges, rounds and clock jumps; a change of pace
// (most learner changes) keeps the step and recomputes only its time.
const DecoupledDilocoSyncer::ReadyStep& DecoupledDilocoSyncer::ready_step(uint32_t p, uint32_t m) {
  ReadyStep& r = ready_steps_[size_t{p} * count_ + m];
  const int64_t consumed = merge_.slot(p, m).consumed;
  const uint64_t round = rounds_.fragment(p).round;
  const DecoupledDilocoLearner& l = *learners_[m];
  if (r.valid && r.consumed == consumed && r.round == round && r.version == l.clock_version()) {
    return r;
  }
  r = {true, consumed, round, l.clock_version(),
       std::max(schedule_.next(p, consumed), schedule_.round_step(p, round)), 0};
  r.own = l.own_of(r.c);
  return r;
}

// With "wait" a round that waited for reports that cannot come would stall
// every learner at its sync point: the syncer proceeds without a down,
// rejoining, parked or partitioned learner (weight 0), as the paper's does.
uint32_t DecoupledDilocoSyncer::quorum(uint32_t p) const {
  if (!config_.transfer.wait() || config_.quorum == 1) return config_.quorum;
  const std::span<const core::SimTime> ready = rounds_.ready(p);
  uint32_t able = 0;
  for (uint32_t m = 0; m < count_; ++m) {
    const DecoupledDilocoLearner& l = *learners_[m];
    if (ready[m] != kNever || (l.live() && reachable(l))) ++able;
  }
  return std::clamp(able, 1u, config_.quorum);
}

core::SimTime DecoupledDilocoSyncer::all_live_ready(uint32_t p) const {
  const std::span<const core::SimTime> ready = rounds_.ready(p);
  core::SimTime last = core::SimTime::zero();
  for (uint32_t m = 0; m < count_; ++m) {
    if (learners_[m]->live()) last = std::max(last, ready[m]);
  }
  return last;
}

void DecoupledDilocoSyncer::reschedule(uint32_t p) {
  if (rounds_.stopped()) return;
  const FragmentRounds::Fragment& f = rounds_.fragment(p);
  core::SimTime t;
  if (f.phase == Phase::kGrace) {
    t = std::min(f.quorum_at + f.grace, all_live_ready(p));
  } else if (const uint32_t k = quorum(p); k == 1) {
    t = rounds_.earliest(p);
  } else {
    t = kth_earliest(rounds_.ready(p), k, scratch_);
  }
  if (t != kNever) t = std::max(t, now());
  schedule_at(p, t);
}

void DecoupledDilocoSyncer::schedule_at(uint32_t p, core::SimTime t) {
  FragmentRounds::Fragment& f = rounds_.fragment(p);
  if (t == f.event_time) return;
  ctx_.sim.cancel(f.event);
  f.event_time = t;
  if (t != kNever) f.event = ctx_.sim.schedule_at(t, core::kBandPolicy, handler_, p);
  gate_.on_rescheduled(p);
}

void DecoupledDilocoSyncer::on_event(uint32_t p) {
  FragmentRounds::Fragment& f = rounds_.fragment(p);
  f.event_time = kNever;
  if (f.phase == Phase::kQuorum) {
    on_quorum(p);
  } else {
    merge(p);
  }
}

void DecoupledDilocoSyncer::on_quorum(uint32_t p) {
  // Every change of a learner re-predicted its reports, so the quorum is
  // there (a partition, which notifies no one, is noticed at the merge).
  FragmentRounds::Fragment& f = rounds_.fragment(p);
  f.quorum_at = now();
  clock_ = std::max(clock_, schedule_.round_step(p, f.round));
  jump_lagging();
  if (config_.grace) {
    observe_quorum(p);  // the window's averages: nothing else reads them
    const core::Duration g = grace_.window();
    if (g > core::Duration::zero() && all_live_ready(p) > now()) {
      f.phase = Phase::kGrace;
      f.grace = g;
      return reschedule(p);
    }
  }
  merge(p);
}

// Feeds the grace window: the time from the round's first report to its
// quorum, and the mean step time of the learners that have reported.
void DecoupledDilocoSyncer::observe_quorum(uint32_t p) {
  const std::span<const core::SimTime> ready = rounds_.ready(p);
  core::SimTime first = kNever;
  double pace_sum = 0;
  uint32_t paced = 0;
  for (uint32_t m = 0; m < count_; ++m) {
    if (ready[m] > now()) continue;
    first = std::min(first, ready[m]);
    if (learners_[m]->running()) {
      pace_sum += learners_[m]->group().clock().step().seconds_f();
      ++paced;
    }
  }
  grace_.observe_quorum(first != kNever ? (now() - first).seconds_f() : -1.0, pace_sum, paced);
}

void DecoupledDilocoSyncer::merge(uint32_t p) {
  FragmentRounds::Fragment& f = rounds_.fragment(p);
  merged_.clear();
  const int64_t open_step = schedule_.round_step(p, f.round);
  for (uint32_t m = 0; m < count_; ++m) {
    if (reachable(*learners_[m])) merge_.contribute(p, m, open_step, now(), merged_);
  }
  RoundRecord rec;
  rec.time = now();
  rec.fragment = p;
  rec.round = f.round;
  rec.grace_wait = f.phase == Phase::kGrace ? now() - f.quorum_at : core::Duration::zero();
  broadcast(p, rec);
  record(rec);
  feed_loss(p);
  open_next(p);
  gate_.on_merged(p);
  if (p == 0 && ff_on_) after_first_merge();
}

void DecoupledDilocoSyncer::open_next(uint32_t p) {
  FragmentRounds::Fragment& f = rounds_.fragment(p);
  ++f.round;
  f.opened = now();
  f.phase = Phase::kQuorum;
  for (uint32_t m = 0; m < count_; ++m) update_ready(p, m);
  reschedule(p);
}

// The loss model hears of the merge with the contributors' steps up to now;
// contributors hold the new fragment, the other live learners receive it
// (here, at the merge: at most about tau of their steps early).
void DecoupledDilocoSyncer::feed_loss(uint32_t p) {
  if (ctx_.loss == nullptr) return;
  loss_contributions_.clear();
  for (const Contribution& k : merged_) {
    learners_[k.learner]->report_loss_steps();
    loss_contributions_.push_back({k.learner, k.weight, k.tokens, k.staleness});
  }
  if (!loss_contributions_.empty()) ctx_.loss->on_merge(p, loss_contributions_);
  for (uint32_t m = 0; m < count_; ++m) {
    const bool merged = std::any_of(merged_.begin(), merged_.end(),
                                    [m](const Contribution& k) { return k.learner == m; });
    if (merged || !learners_[m]->live()) continue;
    learners_[m]->report_loss_steps();
    ctx_.loss->on_receive(m, p);
  }
}

void DecoupledDilocoSyncer::broadcast(uint32_t p, RoundRecord& rec) {
  if (const auto t = transfers_.uniform_time(p)) return broadcast_in_site(p, *t, rec);
  transfers_.begin(p, true);
  for (const Contribution& k : merged_) transfers_.add(learners_[k.learner]->site());
  const core::Duration pull = transfers_.longest();
  stats_.wan_bytes += transfers_.wan_bytes();
  transfers_.begin(p, false);
  receivers_.clear();
  for (uint32_t m = 0; m < count_; ++m) {
    if (!learners_[m]->live()) continue;
    receivers_.push_back(m);
    transfers_.add(learners_[m]->site());
  }
  const FragmentTransfers::Times& times = transfers_.times();
  stats_.wan_bytes += transfers_.wan_bytes();
  core::Duration slowest = core::Duration::zero();
  for (size_t i = 0; i < receivers_.size(); ++i) {
    if (!times[i]) continue;  // partitioned: it keeps its copy
    const uint32_t m = receivers_[i];
    slowest = std::max(slowest, *times[i]);
    const core::SimTime at = now() + pull + *times[i];
    rounds_.sent(p, m, rec.round, at);
    merge_.arrive(p, m, at);
  }
  rec.sync_time = pull + slowest;
  record_lateness(p);
}

// broadcast() with one site: every pull and broadcast takes `t`.
void DecoupledDilocoSyncer::broadcast_in_site(uint32_t p, core::Duration t, RoundRecord& rec) {
  const core::Duration pull = merged_.empty() ? core::Duration::zero() : t;
  core::Duration slowest = core::Duration::zero();
  const core::SimTime at = now() + pull + t;
  for (uint32_t m = 0; m < count_; ++m) {
    if (!learners_[m]->live()) continue;
    slowest = t;
    rounds_.sent(p, m, rec.round, at);
    merge_.arrive(p, m, at);
  }
  rec.sync_time = pull + slowest;
  record_lateness(p);
}

// A quorum member is owed the merged fragment by its sync point (tau own
// steps after its report); later is late.
void DecoupledDilocoSyncer::record_lateness(uint32_t p) {
  for (const Contribution& k : merged_) {
    const DecoupledDilocoLearner& l = *learners_[k.learner];
    const auto& arrivals = merge_.slot(p, k.learner).arrivals;
    if (!k.in_quorum || arrivals.empty() || !l.live()) continue;
    const auto due = l.time_of_own(k.own + config_.overlap_steps);
    const core::SimTime at = arrivals.back().at;
    if (due && at > *due) stats_.add_late(at - *due);
  }
}

// A running learner more than one step behind the syncer clock adopts it
// (up to its step in flight); see the header.
void DecoupledDilocoSyncer::jump_lagging() {
  for (uint32_t m = 0; m < count_; ++m) {
    DecoupledDilocoLearner& l = *learners_[m];
    if (!l.running() || l.sched_now() >= clock_ - 1) continue;
    l.jump(clock_ - 1 - l.sched_now());
    ++stats_.clock_jumps;
    on_learner_change(m);
    gate_.update(m);
  }
}

void DecoupledDilocoSyncer::record(RoundRecord& rec) {
  tally_round(rec, merged_, stats_);
  if (config_.grace) grace_.observe_sync(rec.sync_time);
  if (observer_) observer_(rec);
  ctx_.trace_tally(trace_track_, "merge", [&rec] {
    return std::pair{
        nlohmann::json{{"fragment", rec.fragment}, {"round", rec.round}, {"quorum", rec.quorum},
                       {"contributors", rec.contributors}, {"max_staleness", rec.max_staleness}},
        nlohmann::json{{"quorum", rec.quorum}, {"max_staleness", rec.max_staleness}}};
  });
  ctx_.log("sync_round", [&rec] {
    return nlohmann::json{{"fragment", rec.fragment}, {"round", rec.round},
                          {"quorum", rec.quorum}, {"contributors", rec.contributors},
                          {"tokens", rec.tokens}, {"weight", rec.weight},
                          {"max_staleness", rec.max_staleness},
                          {"grace_wait_s", rec.grace_wait.seconds_f()},
                          {"sync_s", rec.sync_time.seconds_f()}};
  });
}

void DecoupledDilocoSyncer::on_learner_change(uint32_t m) {
  ++changes_;
  for (uint32_t p = 0; p < config_.fragments; ++p) {
    update_ready(p, m);
    reschedule(p);
  }
}

void DecoupledDilocoSyncer::on_learner_down(uint32_t m) {
  ++changes_;
  merge_.drop_pending(m, now());
  rounds_.drop_pending(m, now());
}

void DecoupledDilocoSyncer::on_rejoin(uint32_t m, std::optional<uint32_t> peer) {
  DecoupledDilocoLearner& l = *learners_[m];
  const bool from_peer = peer && learners_[*peer]->live();
  l.adopt_clock(from_peer ? learners_[*peer]->sched_now() : clock_);
  const uint64_t own = l.own_now();
  std::vector<uint64_t> ages(config_.fragments, 0);
  for (uint32_t p = 0; p < config_.fragments && from_peer; ++p) {
    const FragmentMerge::Base b = merge_.current_base(p, *peer, now());
    ages[p] = learners_[*peer]->own_now() - b.own + b.age;
  }
  merge_.reset(m, l.sched_now(), own, merge_.count_tokens() ? l.tokens_at(own) : 0.0, ages);
  rounds_.reset(m);
  l.set_sync_floor(own);
  ++stats_.rejoins;
  stats_.rejoin_staleness_max =
      std::max(stats_.rejoin_staleness_max, *std::max_element(ages.begin(), ages.end()));
  on_learner_change(m);
}

void DecoupledDilocoSyncer::trim(uint32_t m) {
  learners_[m]->trim(merge_.keep_from(m, now()), now());
}

void DecoupledDilocoSyncer::stop() {
  rounds_.stop();
  for (uint32_t p = 0; p < rounds_.fragments(); ++p) {
    FragmentRounds::Fragment& f = rounds_.fragment(p);
    ctx_.sim.cancel(f.event);
    f.event_time = kNever;
  }
}

}  // namespace goodsim::models::policy
