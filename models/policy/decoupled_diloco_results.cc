// decoupled_diloco's per-learner results and diagnostics (summary.json), read
// from its learners' groups and the syncer's statistics after the run.
#include "models/policy/decoupled_diloco.h"
#include "models/policy/learner_results.h"

namespace goodsim::models::policy {

std::vector<output::LearnerResult> DecoupledDiloco::learner_results(core::SimTime end) const {
  std::vector<output::LearnerResult> out;
  const uint64_t per_slice = ctx_->layout().chips_per_slice();
  for (uint32_t k = 0; k < learners_.size(); ++k) {
    const DecoupledDilocoLearner& l = *learners_[k];
    output::LearnerResult r = group_learner_result(l.group(), k, end);
    r.steps = l.group().steps(end);
    r.tokens = l.kept_tokens();
    r.goodput = token_goodput(r.tokens, l.tokens_per_slice_step(), ctx_->job.step_time,
                              per_slice, r.chips, end);
    r.extra.set_number("mean_staleness", syncer_->stats().learner_mean_staleness(k));
    out.push_back(std::move(r));
  }
  return out;
}

void DecoupledDiloco::describe(output::Diagnostics& d, core::SimTime end) const {
  d.extra.set_number("mean_staleness", syncer_->stats().mean_staleness());
  // The outage tracker follows "no learner running" (changed()): the intersection of the
  // learners' paused intervals.
  if (end.seconds_f() > 0) {
    d.extra.set_number("all_paused_fraction",
                       outages_.downtime().seconds_f() / end.seconds_f());
  }
}

}  // namespace goodsim::models::policy
