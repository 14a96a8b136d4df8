#include "models/policy/decoupled_diloco_gate.h"

#include <algorithm>

namespace goodsim::models::policy {

DecoupledDilocoGate::DecoupledDilocoGate(RunContext& ctx, const DecoupledDilocoConfig& config,
                                         Learners& learners, const DecoupledDilocoSyncer& syncer)
    : ctx_(ctx), config_(config), learners_(learners), syncer_(syncer) {
  gates_.resize(learners.size());
  waiting_.assign(config.fragments, 0);
  // "skip" schedules nothing: no handler, so the run's other handlers keep
  // their numbers (and a skip run its fingerprint).
  if (!config.transfer.wait()) return;
  handler_ = ctx.sim.add_handler(ctx.policy_name + ".gate", [this](const core::Event& e) {
    on_event(static_cast<uint32_t>(e.a));
  });
}

void DecoupledDilocoGate::update(uint32_t m) {
  if (stopped_) return;
  Gate& g = gates_[m];
  disarm(m);
  if (g.held) {
    const DecoupledDilocoLearner& l = *learners_[m];
    if (l.live() && l.group().mode() == ElasticGroup::Mode::kHeld) {
      const core::SimTime d = syncer_.delivery(g.fragment, m, g.round);
      if (d != kUnknown) schedule(m, std::max(d, now()));
      return;
    }
    end_stall(m);
  }
  predict(m);
}

void DecoupledDilocoGate::on_merged(uint32_t p) {
  if (stopped_) return;
  for (uint32_t m = 0, n = static_cast<uint32_t>(gates_.size()); m < n; ++m) {
    Gate& g = gates_[m];
    if (g.fragment == kNone || (g.fragment == p && g.held)) {
      update(m);
    } else if (g.fragment == p) {
      // The sync points before this one came in time, and still do: later
      // broadcasts only add arrivals. Nothing changed the learner since the
      // prediction, so this point is still reached at g.reach.
      disarm(m);
      const core::SimTime d = syncer_.delivery(p, m, g.round);
      predict(m, d != kUnknown && d <= g.reach ? g.report + 1 : g.report);
    }
  }
}

void DecoupledDilocoGate::on_rescheduled(uint32_t p) {
  if (stopped_ || waiting_[p] == 0) return;
  for (uint32_t m = 0, n = static_cast<uint32_t>(gates_.size()); m < n; ++m) {
    const Gate& g = gates_[m];
    // A merged round is re-predicted by on_merged().
    if (g.fragment != p || g.held || g.event.valid() || g.round < syncer_.open_round(p)) continue;
    const core::SimTime at = syncer_.merge_time(p, g.round);
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
  const DecoupledDilocoLearner& l = *learners_[m];
  if (!config_.transfer.wait() || !l.running() || !syncer_.reachable(l)) return;
  const auto tau = static_cast<int64_t>(config_.overlap_steps);
  int64_t c = std::max(l.sched_now() - tau, from.value_or(INT64_MIN));
  for (uint64_t i = 0; i <= config_.fragments + config_.overlap_steps; ++i, ++c) {
    uint32_t p = 0;
    uint64_t round = 0;
    c = report_at_or_after(c, p, round);
    const uint64_t own = l.own_of(c + tau);
    const core::SimTime reach = std::max(now(), l.time_of_own(own).value_or(now()));
    const core::SimTime d = syncer_.delivery(p, m, round);
    if (d != kUnknown && d <= reach) continue;
    g.fragment = p;
    ++waiting_[p];
    g.round = round;
    g.report = c;
    g.own = own;
    g.reach = reach;
    if (d == kUnknown) {  // not merged yet: no event while the merge comes first
      const core::SimTime merged = syncer_.merge_time(p, round);
      if (merged != kUnknown && merged < reach) return;
    }
    return schedule(m, reach);
  }
}

int64_t DecoupledDilocoGate::report_at_or_after(int64_t s, uint32_t& p, uint64_t& round) const {
  const auto h = static_cast<int64_t>(config_.inner_steps);
  s = std::max<int64_t>(s, 1);  // no report at step 0
  const int64_t q = s / h;
  const int64_t r = s - q * h;
  // t_p = floor(p H / P) >= r exactly when p >= r P / H (r < H: 64 bits
  // hold r P + H when H < 2^32, the usual case; 128 otherwise).
  __extension__ using Wide = unsigned __int128;
  const auto uh = static_cast<uint64_t>(h);
  const auto ur = static_cast<uint64_t>(r);
  const uint64_t first =
      uh <= UINT32_MAX ? (ur * config_.fragments + uh - 1) / uh
                       : static_cast<uint64_t>((static_cast<Wide>(ur) * config_.fragments + uh - 1) / uh);
  if (first < config_.fragments) {
    p = static_cast<uint32_t>(first);
    round = static_cast<uint64_t>(q);
    return s - r + static_cast<int64_t>(syncer_.offset(p));
  }
  p = 0;  // t_0 = 0, in the next period
  round = static_cast<uint64_t>(q) + 1;
  return s - r + h;
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
  const core::SimTime d = syncer_.delivery(g.fragment, m, g.round);
  if (d != kUnknown && d <= now()) return predict(m);
  hold(m);
}

void DecoupledDilocoGate::hold(uint32_t m) {
  Gate& g = gates_[m];
  g.held = true;
  g.held_since = now();
  ++stalls_;
  learners_[m]->group().hold();  // the listener calls update(): the release, once merged
}

void DecoupledDilocoGate::release(uint32_t m) {
  const Gate& g = gates_[m];
  const core::SimTime d = syncer_.delivery(g.fragment, m, g.round);
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
  ctx_.log("learner_stall", [&] {
    return nlohmann::json{{"learner", m}, {"fragment", g.fragment}, {"round", g.round},
                          {"wait_s", wait.seconds_f()}};
  });
}

}  // namespace goodsim::models::policy
