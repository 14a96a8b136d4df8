#include "models/policy/decoupled_diloco_syncer.h"

#include <algorithm>

#include "models/loss_tracker.h"

namespace goodsim::models::policy {

DecoupledDilocoSyncer::DecoupledDilocoSyncer(RunContext& ctx, const DecoupledDilocoConfig& config,
                                             Learners& learners)
    : ctx_(ctx), config_(config), learners_(learners),
      count_(static_cast<uint32_t>(learners.size())) {
  handler_ = ctx.sim.add_handler(ctx.policy_name + ".syncer_round", [this](const core::Event& e) {
    if (e.a == kWake) return wake();
    on_event(static_cast<uint32_t>(e.a));
  });
  trace_track_ = ctx.trace_track("syncer");
  for (uint32_t p = 0; p < config.fragments; ++p) offsets_.push_back(config.offset(p));
}

void DecoupledDilocoSyncer::start() {
  fragment_bytes_ = config_.transfer.bytes(ctx_.job, config_.fragments);
  intra_time_.clear();
  for (const double bytes : fragment_bytes_) {
    intra_time_.push_back(core::Duration::from_seconds(bytes * 8.0 / ctx_.job.intra_site_bps));
  }
  delivery_bound_.reset();
  if (ctx_.layout().sites() == 1) {  // P >= 1 fragments
    delivery_bound_ = *std::max_element(intra_time_.begin(), intra_time_.end()) * 2;
  }
  fragments_.assign(config_.fragments, Fragment{});
  slots_.assign(size_t{config_.fragments} * count_, Slot{});
  scratch_.reserve(count_);
  stats_.learner_contributions.assign(count_, 0);
  stats_.learner_staleness_sum.assign(count_, 0);
  merged_.reserve(count_);
  for (uint32_t p = 0; p < config_.fragments; ++p) {
    fragments_[p].round = offset(p) == 0 ? 1 : 0;  // no report at step 0
    fragments_[p].opened = now();
    for (uint32_t m = 0; m < count_; ++m) update_ready(p, m);
    reschedule(p);
  }
}

// The first report of learner m that counts for the open round: after the
// last one merged, and of this round or a later one.
void DecoupledDilocoSyncer::update_ready(uint32_t p, uint32_t m) {
  const DecoupledDilocoLearner& l = *learners_[m];
  Slot& s = slot(p, m);
  const Fragment& f = fragments_[p];
  const int64_t c = std::max(next_report(s.consumed, offset(p), config_.inner_steps),
                             round_step(p, f.round));
  const uint64_t own = l.own_of(c);
  if (!reachable(l)) {
    s.ready = kNever;  // partitioned from the syncer: its reports cannot arrive
  } else if (c <= l.sched_now()) {
    const auto made = l.time_of_own(own);
    s.ready = std::max(f.opened, made.value_or(f.opened));
  } else if (l.running()) {
    s.ready = l.time_of_own(own).value_or(kNever);
  } else {
    s.ready = kNever;
  }
}

// With "wait" a round that waited for reports that cannot come would stall
// every learner at its sync point: the syncer proceeds without a down,
// rejoining, parked or partitioned learner (weight 0), as the paper's does.
uint32_t DecoupledDilocoSyncer::quorum(uint32_t p) const {
  if (!config_.transfer.wait() || config_.quorum == 1) return config_.quorum;
  uint32_t able = 0;
  for (uint32_t m = 0; m < count_; ++m) {
    const DecoupledDilocoLearner& l = *learners_[m];
    if (slot(p, m).ready != kNever || (l.live() && reachable(l))) ++able;
  }
  return std::clamp(able, 1u, config_.quorum);
}

core::SimTime DecoupledDilocoSyncer::kth_ready(uint32_t p) const {
  const uint32_t k = quorum(p);
  if (k == 1) {
    core::SimTime first = kNever;
    for (uint32_t m = 0; m < count_; ++m) first = std::min(first, slot(p, m).ready);
    return first;
  }
  std::vector<core::SimTime>& v = scratch_;
  v.clear();
  for (uint32_t m = 0; m < count_; ++m) v.push_back(slot(p, m).ready);
  const auto kth = v.begin() + (k - 1);
  std::nth_element(v.begin(), kth, v.end());
  return *kth;
}

core::SimTime DecoupledDilocoSyncer::all_live_ready(uint32_t p) const {
  core::SimTime last = core::SimTime::zero();
  for (uint32_t m = 0; m < count_; ++m) {
    if (learners_[m]->live()) last = std::max(last, slot(p, m).ready);
  }
  return last;
}

void DecoupledDilocoSyncer::reschedule(uint32_t p) {
  if (stopped_) return;
  const Fragment& f = fragments_[p];
  core::SimTime t = f.phase == Phase::kQuorum
                        ? kth_ready(p)
                        : std::min(f.quorum_at + f.grace, all_live_ready(p));
  if (t != kNever) t = std::max(t, now());
  schedule_at(p, t);
}

void DecoupledDilocoSyncer::schedule_at(uint32_t p, core::SimTime t) {
  Fragment& f = fragments_[p];
  if (t == f.event_time) return;
  ctx_.sim.cancel(f.event);
  f.event_time = t;
  if (t != kNever) f.event = ctx_.sim.schedule_at(t, core::kBandPolicy, handler_, p);
  if (on_rescheduled_) on_rescheduled_(p);
}

void DecoupledDilocoSyncer::on_event(uint32_t p) {
  Fragment& f = fragments_[p];
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
  Fragment& f = fragments_[p];
  f.quorum_at = now();
  clock_ = std::max(clock_, round_step(p, f.round));
  jump_lagging();
  if (config_.grace) {
    observe_quorum(p);  // the window's averages: nothing else reads them
    const core::Duration g = grace_window();
    if (g > core::Duration::zero() && all_live_ready(p) > now()) {
      f.phase = Phase::kGrace;
      f.grace = g;
      return reschedule(p);
    }
  }
  merge(p);
}

// Feeds the moving averages of the grace window: the time from the round's
// first report to its quorum, and the mean step time of the learners that
// have reported.
void DecoupledDilocoSyncer::observe_quorum(uint32_t p) {
  Fragment& f = fragments_[p];
  f.first_ready = kNever;
  double pace_sum = 0;
  uint32_t paced = 0;
  for (uint32_t m = 0; m < count_; ++m) {
    const core::SimTime r = slot(p, m).ready;
    if (r > now()) continue;
    f.first_ready = std::min(f.first_ready, r);
    if (learners_[m]->running()) {
      pace_sum += learners_[m]->group().clock().step().seconds_f();
      ++paced;
    }
  }
  if (f.first_ready != kNever) {
    to_quorum_.add((now() - f.first_ready).seconds_f(), config_.ema_weight);
  }
  if (paced > 0) step_.add(pace_sum / paced, config_.ema_weight);
}

core::Duration DecoupledDilocoSyncer::grace_window() const {
  const double slack = static_cast<double>(config_.overlap_steps) * step_.value() -
                       to_quorum_.value() - sync_.value();
  return core::Duration::from_seconds(config_.gamma * std::max(0.0, slack));
}

// A learner applies merged fragment p at its sync points: tau own steps after
// each of its reports of p. A fragment that reached it at own step s applies
// at the first sync point at or after s.
uint64_t DecoupledDilocoSyncer::find_application_point(uint32_t p, uint32_t m,
                                                       const Arrival& a) const {
  const DecoupledDilocoLearner& l = *learners_[m];
  if (a.own == Arrival::kUnknown) a.own = l.history().steps_at(a.at);
  const auto tau = static_cast<int64_t>(config_.overlap_steps);
  const int64_t sched = l.sched_of(a.own);
  const int64_t report = next_report(sched - tau - 1, offset(p), config_.inner_steps);
  a.point = std::max(a.own, l.own_of(report + tau));
  a.point_clock = l.clock_version();
  return a.point;
}

DecoupledDilocoSyncer::Base DecoupledDilocoSyncer::current_base(uint32_t p, uint32_t m) const {
  const Slot& s = slot(p, m);
  Base b{s.base_own, s.base_age};
  const uint64_t own_now = learners_[m]->own_now();
  for (const Arrival& a : s.arrivals) {
    if (a.at > now()) break;
    const uint64_t point = application_point(p, m, a);
    if (point > own_now) break;
    if (point > b.own) b = {point, 0};
  }
  return b;
}

// Appends to merged_ the progress of learner m on fragment p not merged yet,
// if any. Its reports since the last merged one are cumulative from the base,
// except that a merged fragment applied between two of them starts a new
// base: the report before each application carries its own piece (it was at
// the syncer already).
void DecoupledDilocoSyncer::contribute(uint32_t p, uint32_t m) {
  const DecoupledDilocoLearner& l = *learners_[m];
  Slot& s = slot(p, m);
  const uint64_t t = offset(p), h = config_.inner_steps;
  const int64_t last = latest_report(l.sched_now(), t, h);
  if (last == 0 || last <= s.consumed || !reachable(l)) return;
  Contribution& k = merged_.emplace_back();
  k.learner = m;
  k.in_quorum = last >= round_step(p, fragments_[p].round);
  size_t applied = 0;
  const uint64_t last_own = l.own_of(last);
  for (const Arrival& a : s.arrivals) {
    if (a.at > now()) break;
    const uint64_t point = application_point(p, m, a);
    if (point >= last_own) break;
    ++applied;
    if (point <= s.base_own) continue;  // superseded by a newer one applied
    const int64_t before = latest_report(l.sched_of(point - 1), t, h);
    if (before > s.consumed) add_piece(k, s, l, before);
    s.base_own = point;
    s.base_tokens = l.tokens_at(point);
    s.base_age = 0;
  }
  s.arrivals.erase(s.arrivals.begin(), s.arrivals.begin() + static_cast<std::ptrdiff_t>(applied));
  add_piece(k, s, l, last);
  if (k.pieces == 0) merged_.pop_back();
}

// Adds the progress from the base to report c, and marks c merged. A step
// already merged with an earlier report (no newer fragment was applied since)
// is in the learner's outer gradient again, but its tokens count once.
void DecoupledDilocoSyncer::add_piece(Contribution& k, Slot& s, const DecoupledDilocoLearner& l,
                                      int64_t c) {
  s.consumed = c;
  const uint64_t own = l.own_of(c);
  k.own = own;
  const bool since_base = s.base_own >= s.merged_own;
  const uint64_t from = since_base ? s.base_own : s.merged_own;
  if (own <= from) return;
  const double at_report = l.tokens_at(own);
  const double tokens = at_report - (since_base ? s.base_tokens : s.merged_tokens);
  k.tokens += tokens;
  k.weight += tokens * tokens / static_cast<double>(own - from);
  k.staleness = std::max(k.staleness, own - s.base_own + s.base_age);
  s.merged_own = own;
  s.merged_tokens = at_report;
  ++k.pieces;
}

void DecoupledDilocoSyncer::merge(uint32_t p) {
  Fragment& f = fragments_[p];
  merged_.clear();
  for (uint32_t m = 0; m < count_; ++m) contribute(p, m);
  RoundRecord rec;
  rec.time = now();
  rec.fragment = p;
  rec.round = f.round;
  rec.grace_wait = f.phase == Phase::kGrace ? now() - f.quorum_at : core::Duration::zero();
  broadcast(p, rec);
  record(rec);
  feed_loss(p);
  ++f.round;
  f.opened = now();
  f.phase = Phase::kQuorum;
  for (uint32_t m = 0; m < count_; ++m) update_ready(p, m);
  reschedule(p);
  if (on_merged_) on_merged_(p);
  if (p == 0 && ff_on_) after_first_merge();
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

void DecoupledDilocoSyncer::transfer_times(uint32_t p, size_t n) {
  times_.assign(n, intra_time_[p]);
  if (ctx_.layout().sites() == 1 || n == 0) return;
  const auto wan = concurrent_transfer_times(ctx_.network, flows_);
  for (size_t i = 0; i < flows_.size(); ++i) {
    if (flows_[i].from != flows_[i].to) times_[i] = wan[i];
  }
}

void DecoupledDilocoSyncer::broadcast(uint32_t p, RoundRecord& rec) {
  const bool wan = ctx_.layout().sites() > 1;  // else every flow runs at intra_site_bps
  flows_.clear();
  if (wan) {
    for (const Contribution& k : merged_) {
      flows_.push_back({learners_[k.learner]->site(), kSyncerSite, fragment_bytes_[p]});
    }
  }
  transfer_times(p, merged_.size());
  core::Duration pull = core::Duration::zero(), slowest = core::Duration::zero();
  for (const auto& t : times_) pull = std::max(pull, t.value_or(pull));
  flows_.clear();
  receivers_.clear();
  for (uint32_t m = 0; m < count_; ++m) {
    if (!learners_[m]->live()) continue;
    receivers_.push_back(m);
    if (wan) flows_.push_back({kSyncerSite, learners_[m]->site(), fragment_bytes_[p]});
  }
  transfer_times(p, receivers_.size());
  for (size_t i = 0; i < receivers_.size(); ++i) {
    if (!times_[i]) continue;  // partitioned: it keeps its copy
    const uint32_t m = receivers_[i];
    slowest = std::max(slowest, *times_[i]);
    const core::SimTime at = now() + pull + *times_[i];
    std::vector<Sent>& sent = slot(p, m).sent;
    if (sent.size() < kMaxArrivals) {
      sent.push_back({rec.round, at});
    } else {  // drop the oldest: a fixed-size shift, no library call
      for (size_t j = 1; j < kMaxArrivals; ++j) sent[j - 1] = sent[j];
      sent[kMaxArrivals - 1] = {rec.round, at};
    }
    // Older fragments still waiting are superseded once this one applies.
    std::vector<Arrival>& arrivals = slot(p, m).arrivals;
    if (arrivals.size() >= kMaxArrivals) arrivals.erase(arrivals.begin());
    arrivals.emplace_back().at = at;  // kept by arrival time: one that got there first stays first
    for (size_t j = arrivals.size() - 1; j > 0 && arrivals[j - 1].at > at; --j) {
      std::swap(arrivals[j - 1], arrivals[j]);
    }
  }
  rec.sync_time = pull + slowest;
  record_lateness(p);
}

// A quorum member is owed the merged fragment by its sync point (tau own
// steps after its report); later is late.
void DecoupledDilocoSyncer::record_lateness(uint32_t p) {
  for (const Contribution& k : merged_) {
    const DecoupledDilocoLearner& l = *learners_[k.learner];
    const Slot& s = slot(p, k.learner);
    if (!k.in_quorum || s.arrivals.empty() || !l.live()) continue;
    const auto due = l.time_of_own(k.own + config_.overlap_steps);
    const core::SimTime at = s.arrivals.back().at;
    if (!due || at <= *due) continue;
    const core::Duration late = at - *due;
    ++stats_.late;
    stats_.lateness += late;
    stats_.lateness_max = std::max(stats_.lateness_max, late);
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
    if (on_jumped_) on_jumped_(m);
  }
}

void DecoupledDilocoSyncer::record(const RoundRecord& in) {
  RoundRecord rec = in;
  uint64_t staleness_sum = 0;
  for (const Contribution& k : merged_) {
    ++stats_.learner_contributions[k.learner];
    stats_.learner_staleness_sum[k.learner] += k.staleness;
    rec.quorum += k.in_quorum ? 1 : 0;
    rec.tokens += k.tokens;
    rec.weight += k.weight;
    rec.max_staleness = std::max(rec.max_staleness, k.staleness);
    staleness_sum += k.staleness;
  }
  rec.contributors = static_cast<uint32_t>(merged_.size());
  rec.mean_staleness = merged_.empty() ? 0.0 : double(staleness_sum) / double(merged_.size());
  if (config_.grace) sync_.add(rec.sync_time.seconds_f(), config_.ema_weight);
  SyncerStats& st = stats_;
  ++st.rounds;
  st.quorum_sum += rec.quorum;
  st.quorum_max = std::max(st.quorum_max, rec.quorum);
  st.contributions += rec.contributors;
  st.staleness_sum += staleness_sum;
  st.staleness_max = std::max(st.staleness_max, rec.max_staleness);
  st.grace_wait += rec.grace_wait;
  st.grace_rounds += rec.grace_wait > core::Duration::zero() ? 1 : 0;
  st.sync_time += rec.sync_time;
  st.tokens_merged += rec.tokens;
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
  for (uint32_t p = 0; p < config_.fragments; ++p) {
    std::vector<Arrival>& arrivals = slot(p, m).arrivals;
    while (!arrivals.empty() && arrivals.back().at > now()) arrivals.pop_back();
    std::vector<Sent>& sent = slot(p, m).sent;
    std::erase_if(sent, [this](const Sent& x) { return x.at > now(); });
  }
}

void DecoupledDilocoSyncer::on_rejoin(uint32_t m, std::optional<uint32_t> peer) {
  DecoupledDilocoLearner& l = *learners_[m];
  const bool from_peer = peer && learners_[*peer]->live();
  l.adopt_clock(from_peer ? learners_[*peer]->sched_now() : clock_);
  const uint64_t own = l.own_now();
  const double tokens = l.tokens_at(own);
  uint64_t oldest = 0;
  for (uint32_t p = 0; p < config_.fragments; ++p) {
    uint64_t age = 0;
    if (from_peer) {
      const Base b = current_base(p, *peer);
      age = learners_[*peer]->own_now() - b.own + b.age;
    }
    slot(p, m) = Slot{l.sched_now(), own, tokens, age, own, tokens, {}, kNever, {}};
    oldest = std::max(oldest, age);
  }
  l.set_sync_floor(own);
  ++stats_.rejoins;
  stats_.rejoin_staleness_max = std::max(stats_.rejoin_staleness_max, oldest);
  on_learner_change(m);
}

void DecoupledDilocoSyncer::trim(uint32_t m) {
  DecoupledDilocoLearner& l = *learners_[m];
  const uint64_t own = l.own_now();
  const uint64_t back = config_.inner_steps + config_.overlap_steps + 1;
  // Later questions: tokens at reports and application points no older than
  // H before an arrival still to apply, or than H + tau before now.
  uint64_t keep = own > back ? own - back : 0;
  for (uint32_t p = 0; p < config_.fragments; ++p) {
    for (const Arrival& a : slot(p, m).arrivals) {
      if (a.at > now()) break;
      const uint64_t point = application_point(p, m, a);  // also sets a.own
      const uint64_t from = std::min(point, a.own);
      keep = std::min(keep, from > back ? from - back : 0);
    }
  }
  l.trim(keep, now());
}

void DecoupledDilocoSyncer::stop() {
  stopped_ = true;
  for (Fragment& f : fragments_) {
    ctx_.sim.cancel(f.event);
    f.event_time = kNever;
  }
}

}  // namespace goodsim::models::policy
