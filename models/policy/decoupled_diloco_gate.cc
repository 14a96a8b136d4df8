#include "models/policy/decoupled_diloco_gate.h"

#include <algorithm>

namespace goodsim::models::policy {

DecoupledDilocoGate::DecoupledDilocoGate(const DecoupledDilocoParts& parts,
                                         const FragmentRounds& rounds,
                                         const FragmentTransfers& transfers)
    : ctx_(parts.ctx), config_(parts.config), learners_(parts.learners),
      schedule_(parts.schedule), rounds_(rounds), transfers_(transfers) {
  gates_.resize(learners_.size());
  waits_.resize(learners_.size());
  merges_.resize(config_.fragments);
  waiting_.assign(config_.fragments, 0);
}

void DecoupledDilocoGate::start() {
  // "skip" schedules nothing: no handler, so the run's other handlers keep
  // their numbers (and a skip run its fingerprint).
  if (!config_.transfer.wait()) return;
  handler_ = ctx_.sim.add_handler(ctx_.policy_name + ".gate", [this](const core::Event& e) {
    on_event(static_cast<uint32_t>(e.a));
  });
}

// Without "wait" no learner is ever held or predicted: nothing to do.
void DecoupledDilocoGate::update(uint32_t m) {
  if (stopped_ || !config_.transfer.wait()) return;
  Gate& g = gates_[m];
  disarm(m);
  if (g.held) {
    const DecoupledDilocoLearner& l = *learners_[m];
    if (l.live() && l.group().mode() == ElasticGroup::Mode::kHeld) {
      const core::SimTime d = rounds_.delivery(g.fragment, m, g.round);
      if (d != kUnknown) schedule(m, std::max(d, now()));
      return;
    }
    end_stall(m);
  }
  predict(m);
}

void DecoupledDilocoGate::on_merged(uint32_t p) {
  if (stopped_ || !config_.transfer.wait()) return;
  note_merge(p);
  for (uint32_t m = 0, n = static_cast<uint32_t>(gates_.size()); m < n; ++m) {
    Gate& g = gates_[m];
    if (g.settled) continue;
    if (g.fragment == kNone || (g.fragment == p && g.held)) {
      update(m);
    } else if (g.fragment == p) {
      // The sync points before this one came in time, and still do: later
      // broadcasts only add arrivals. Nothing changed the learner since the
      // prediction, so this point is still reached at g.reach.
      disarm(m);
      const core::SimTime d = rounds_.delivery(p, m, g.round);
      predict(m, d != kUnknown && d <= g.reach ? g.report + 1 : g.report);
    }
  }
}

void DecoupledDilocoGate::on_rescheduled(uint32_t p) {
  if (stopped_ || waiting_[p] == 0) return;
  for (uint32_t m = 0, n = static_cast<uint32_t>(gates_.size()); m < n; ++m) {
    const Gate& g = gates_[m];
    // A merged round is re-predicted by on_merged().
    if (g.fragment != p || g.held || g.event.valid() || g.round < rounds_.open_round(p)) continue;
    const core::SimTime at = rounds_.merge_time(p, g.round);
    if (at == kUnknown || at >= g.reach) schedule(m, g.reach);
  }
}

bool DecoupledDilocoGate::any_held() const {
  return std::any_of(gates_.begin(), gates_.end(), [](const Gate& g) { return g.held; });
}

void DecoupledDilocoGate::disarm(uint32_t m) {
  Gate& g = gates_[m];
  if (g.event.valid()) ctx_.sim.cancel(g.event);
  g.event = {};
}

void DecoupledDilocoGate::stop() {
  stopped_ = true;
  for (Gate& g : gates_) ctx_.sim.cancel(g.event);
}

// Sync points come in schedule order: report c at c + tau, for the reports
// c >= sched - tau. Each report step belongs to one fragment. Looking P + tau
// reports ahead sees every fragment once; beyond, a merge re-predicts.
void DecoupledDilocoGate::predict(uint32_t m, std::optional<int64_t> from) {
  Gate& g = gates_[m];
  if (g.fragment != kNone) --waiting_[g.fragment];
  g.fragment = kNone;
  g.settled = false;
  const DecoupledDilocoLearner& l = *learners_[m];
  if (!config_.transfer.wait() || !l.running() || !transfers_.reachable(l.site())) return;
  const auto tau = static_cast<int64_t>(config_.overlap_steps);
  const int64_t sched = l.sched_now();
  bool asked = false;  // settles(), asked at the first report still to come
  int64_t c = std::max(sched - tau, from.value_or(INT64_MIN));
  for (uint64_t i = 0; i <= config_.fragments + config_.overlap_steps; ++i, ++c) {
    uint32_t p = 0;
    uint64_t round = 0;
    c = schedule_.report_at_or_after(c, p, round);
    if (c > sched && !asked) {
      asked = true;
      if (settles(l)) {
        g.settled = true;
        return;
      }
    }
    const uint64_t own = l.own_of(c + tau);
    const core::SimTime reach = std::max(now(), l.time_of_own(own).value_or(now()));
    const core::SimTime d = rounds_.delivery(p, m, round);
    if (d != kUnknown && d <= reach) continue;
    g.fragment = p;
    ++waiting_[p];
    g.round = round;
    g.report = c;
    g.own = own;
    g.reach = reach;
    if (d == kUnknown) {  // not merged yet: no event while the merge comes first
      const core::SimTime merged = rounds_.merge_time(p, round);
      if (merged != kUnknown && merged < reach) return;
    }
    return schedule(m, reach);
  }
}

// Proof that every sync point of a report c > sched_now() is in time while
// learner m runs unchanged (every change calls update()). Let c be a report
// of fragment p in round n = (c - t_p) / H, made at time r, its sync point
// at r + tau x step (no jump, no pace change), later than r + bound by the
// margin.
//  - Round n is open at r: it is merged at r at the latest. m's report c is
//    not merged yet (it is made at r), so m's ready time for the round is r,
//    and with K = 1 and no grace the merge is scheduled at the earliest ready
//    time (or when the round opened, or at a change, both before r). m runs,
//    so it receives the broadcast by r + bound.
//  - Round n was merged before r, at T: if m already ran at T (T after the
//    settling), it received it by T + bound. For m's next report of each
//    fragment (the start of the induction) this is checked below: the open
//    round is not older than the report's round, and a round already merged
//    was sent to m (it arrives by the settling + bound).
//  - Round n + 1 is then open or merged by r, before m's next report of p,
//    c + H; by induction every later report of p is covered.
// delivery() looks back four broadcasts; m would be jumped to the syncer's
// clock (a change) long before four more rounds of p passed its report.
// Several sites share WAN links (no bound); K > 1 or a grace window merges
// later than m's own report.
bool DecoupledDilocoGate::settles(const DecoupledDilocoLearner& l) const {
  const std::optional<core::Duration> bound = transfers_.delivery_bound();
  const auto tau = static_cast<int64_t>(config_.overlap_steps);
  if (!config_.fast_forward || config_.quorum != 1 || config_.grace || !bound || tau == 0) {
    return false;
  }
  // Rounding of step times is a few nanoseconds; the margin covers it.
  const int64_t need = (*bound + core::Duration::micros(1)).ns();
  if (l.group().clock().step().ns() < (need + tau - 1) / tau) return false;  // tau x step < need
  const int64_t sched = l.sched_now();
  const uint32_t m = l.index();
  for (uint32_t p = 0; p < config_.fragments; ++p) {
    const uint64_t round = schedule_.next_round(p, sched);
    const uint64_t open = rounds_.open_round(p);
    if (open < round) return false;
    if (open > round && rounds_.delivery(p, m, round) == core::SimTime::zero()) return false;
  }
  return true;
}

void DecoupledDilocoGate::schedule(uint32_t m, core::SimTime t) {
  Gate& g = gates_[m];
  ctx_.sim.cancel(g.event);
  g.event = ctx_.sim.schedule_at(t, core::kBandPolicy, handler_, m);
}

void DecoupledDilocoGate::on_event(uint32_t m) {
  Gate& g = gates_[m];
  g.event = {};
  if (stopped_) return;
  if (g.held) return release(m);
  DecoupledDilocoLearner& l = *learners_[m];
  if (g.fragment == kNone || !l.running()) return;
  // The clock must have credited the step, or the hold would lose it.
  if (l.group().steps(now()) < g.own) return schedule(m, now() + core::Duration::nanos(1));
  const core::SimTime d = rounds_.delivery(g.fragment, m, g.round);
  if (d != kUnknown && d <= now()) return predict(m);
  hold(m);
}

void DecoupledDilocoGate::hold(uint32_t m) {
  Gate& g = gates_[m];
  g.held = true;
  g.held_since = now();
  // Already merged (on its way): its quorum and merge are past; only their
  // order against the learner's report matters, and both precede the hold.
  g.merge_seen = rounds_.delivery(g.fragment, m, g.round) != kUnknown;
  g.quorum_at = g.merged_at = g.reported_at = now();
  const DecoupledDilocoLearner& l = *learners_[m];
  if (const auto r = l.time_of_own(l.own_of(g.report))) g.reported_at = std::min(*r, now());
  if (g.merge_seen) {
    const MergeMark* mark = merge_of(g.fragment, g.round);
    g.quorum_at = mark ? mark->quorum_at : g.reported_at;
    g.merged_at = mark ? mark->merged_at : g.reported_at;
  }
  ++stalls_;
  learners_[m]->group().hold();  // the listener calls update(): the release, once merged
}

void DecoupledDilocoGate::release(uint32_t m) {
  const Gate& g = gates_[m];
  const core::SimTime d = rounds_.delivery(g.fragment, m, g.round);
  const DecoupledDilocoLearner& l = *learners_[m];
  if (d == kUnknown || d > now() || !l.live() || l.group().mode() != ElasticGroup::Mode::kHeld) {
    return update(m);
  }
  end_stall(m);
  learners_[m]->group().release();  // the listener calls update(): the next stall
}

void DecoupledDilocoGate::end_stall(uint32_t m) {
  Gate& g = gates_[m];
  g.held = false;
  const core::Duration wait = now() - g.held_since;
  stall_time_ += wait;
  waits_[m] += hold_causes(m);
  ctx_.log("learner_stall", [&] {
    return nlohmann::json{{"learner", m}, {"fragment", g.fragment}, {"round", g.round},
                          {"wait_s", wait.seconds_f()}};
  });
}


void DecoupledDilocoGate::note_merge(uint32_t p) {
  const uint64_t merged = rounds_.open_round(p) - 1;  // on_merged: the next round is open
  const MergeMark mark{merged, rounds_.fragment(p).quorum_at, now()};
  std::vector<MergeMark>& marks = merges_[p];
  if (marks.size() == kMarks) marks.erase(marks.begin());
  marks.push_back(mark);
  for (Gate& g : gates_) {
    if (!g.held || g.merge_seen || g.fragment != p || g.round > merged) continue;
    g.merge_seen = true;
    g.quorum_at = mark.quorum_at;
    g.merged_at = mark.merged_at;
  }
}

const DecoupledDilocoGate::MergeMark* DecoupledDilocoGate::merge_of(uint32_t p,
                                                                    uint64_t round) const {
  for (const MergeMark& mark : merges_[p]) {
    if (mark.round >= round) return &mark;  // the first merge that delivers round n
  }
  return nullptr;
}

// The way back of the awaited fragment after the learner's report r splits
// into quorum [r, q), grace [q, g) and transfer [g, now) (each from r on).
// The learner's own steps from r to the hold h hide h - r of it, taken
// first from the transfer, then the grace window (what tau steps of overlap
// are for), so the hold is charged to the causes that outlast them.
DecoupledDilocoGate::Waits DecoupledDilocoGate::hold_causes(uint32_t m) const {
  const Gate& g = gates_[m];
  const core::SimTime from = g.reported_at, to = now();
  core::SimTime quorum = to, merged = to;  // not merged: all quorum, ...
  if (g.merge_seen) {
    quorum = g.quorum_at;
    merged = g.merged_at;
  } else if (g.fragment != kNone && rounds_.open_round(g.fragment) == g.round &&
             rounds_.fragment(g.fragment).phase == FragmentRounds::Phase::kGrace) {
    quorum = rounds_.fragment(g.fragment).quorum_at;  // ... or grace since its quorum
  }
  quorum = std::clamp(quorum, from, to);
  merged = std::clamp(merged, quorum, to);
  core::Duration hidden = g.held_since - from;
  const auto uncovered = [&hidden](core::Duration part) {
    const core::Duration covered = std::min(part, hidden);
    hidden -= covered;
    return part - covered;
  };
  const core::Duration transfer = uncovered(to - merged);
  const core::Duration grace = uncovered(merged - quorum);
  return {uncovered(quorum - from), grace, transfer};
}

DecoupledDilocoGate::Waits DecoupledDilocoGate::waits(uint32_t m) const {
  Waits w = waits_[m];
  if (gates_[m].held) w += hold_causes(m);
  return w;
}

}  // namespace goodsim::models::policy
