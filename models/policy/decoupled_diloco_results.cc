// decoupled_diloco's per-learner results and diagnostics (summary.json), read
// from its learners' groups and the syncer's statistics after the run.
#include "models/policy/decoupled_diloco.h"
#include "models/policy/learner_results.h"

namespace goodsim::models::policy {

std::vector<output::LearnerResult> DecoupledDiloco::learner_results(core::SimTime end) const {
  std::vector<output::LearnerResult> out;
  for (uint32_t k = 0; k < learners_.size(); ++k) {
    const DecoupledDilocoLearner& l = *learners_[k];
    output::LearnerResult r = group_learner_result(l.group(), k, end);
    r.steps = l.group().steps(end);
    r.tokens = l.kept_tokens();
    // Its chips computing kept steps at its own pace (docs/metrics.md).
    const double capacity = static_cast<double>(chip_units(r.chips)) *
                            static_cast<double>(end.since_start().ns());
    r.goodput = capacity > 0 ? static_cast<double>(l.productive_kept()) / capacity : 0.0;
    r.extra.set_number("mean_staleness", syncer_->stats().learner_mean_staleness(k));
    add_learner_fields(r.extra, k);
    out.push_back(std::move(r));
  }
  return out;
}

// Merges and waits by cause (docs/metrics.md, "Learners of Decoupled DiLoCo").
void DecoupledDiloco::add_learner_fields(output::ExtraFields& f, uint32_t k) const {
  const SyncerStats& stats = syncer_->stats();
  f.add("merges", static_cast<int64_t>(stats.learner_contributions[k]), "count",
        "merged rounds its progress contributed to, late reports included");
  f.add("quorum_merges", static_cast<int64_t>(stats.learner_quorum[k]), "count",
        "of merges: with a report of the merged round itself (in its quorum), not a late one");
  const DecoupledDilocoGate::Waits w = gate_->waits(k);
  f.add("wait_s", w.total().seconds_f(), "s", "time held at sync points for a merged fragment");
  f.add("wait_quorum_s", w.quorum.seconds_f(), "s",
        "of wait_s: before the round's quorum (other learners' reports)");
  f.add("wait_grace_s", w.grace.seconds_f(), "s", "of wait_s: in the syncer's grace window");
  f.add("wait_transfer_s", w.transfer.seconds_f(), "s",
        "of wait_s: after the merge (the fragment's pull and broadcast)");
}

void DecoupledDiloco::describe(output::Diagnostics& d, core::SimTime end) const {
  const SyncerStats& stats = syncer_->stats();
  d.extra.set_number("mean_staleness", stats.mean_staleness());
  d.extra.add("mean_contributors", stats.mean_contributors(), "count",
              "learners merged per round, late reports included");
  DecoupledDilocoGate::Waits w;
  for (uint32_t k = 0; k < learners_.size(); ++k) w += gate_->waits(k);
  d.extra.add("wait_quorum_s", w.quorum.seconds_f(), "learner-s",
              "held at sync points before the round's quorum, summed over learners");
  d.extra.add("wait_grace_s", w.grace.seconds_f(), "learner-s",
              "held at sync points in the grace window, summed over learners");
  d.extra.add("wait_transfer_s", w.transfer.seconds_f(), "learner-s",
              "held at sync points after the merge (pull and broadcast), summed over learners");
  // The outage tracker follows "no learner running" (changed()): the intersection of the
  // learners' paused intervals.
  if (end.seconds_f() > 0) {
    d.extra.set_number("all_paused_fraction",
                       outages_.downtime().seconds_f() / end.seconds_f());
  }
}

}  // namespace goodsim::models::policy
