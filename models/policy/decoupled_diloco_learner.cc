#include "models/policy/decoupled_diloco_learner.h"

#include <algorithm>
#include <iterator>

#include "models/loss_tracker.h"

namespace goodsim::models::policy {
DecoupledDilocoLearner::DecoupledDilocoLearner(RunContext& ctx, uint32_t index,
                                               cluster::SliceId first, cluster::SliceId end,
                                               const ElasticSpec& spec,
                                               double tokens_per_slice_step,
                                               ElasticGroup::Listener listener)
    : ctx_(ctx),
      index_(index),
      history_(tokens_per_slice_step),
      group_(ctx, ctx.policy_name + ".learner" + std::to_string(index), first, end, spec,
             tokens_per_slice_step, std::move(listener)),
      site_(ctx.layout().site_of(first)),
      tokens_per_slice_step_(tokens_per_slice_step) {}

void DecoupledDilocoLearner::adopt_clock(int64_t sched) {
  const uint64_t own = own_now();
  clock_.assign(1, ClockSegment{own, sched - static_cast<int64_t>(own)});
  ++clock_version_;
}

void DecoupledDilocoLearner::jump(int64_t steps) {
  const uint64_t own = own_now();
  const int64_t offset = clock_.back().offset + steps;
  if (clock_.back().own == own) {
    clock_.back().offset = offset;
  } else {
    clock_.push_back({own, offset});
  }
  if (clock_.size() > kClockSegments) clock_.erase(clock_.begin());
  ++clock_version_;
}

void DecoupledDilocoLearner::report_loss_steps() {
  if (ctx_.loss == nullptr) return;
  const uint64_t own = own_now();
  if (own <= loss_steps_) return;
  const double tokens = tokens_at(own);
  const uint64_t n = own - loss_steps_;
  ctx_.loss->on_inner_steps(index_, n, (tokens - loss_tokens_) / static_cast<double>(n));
  loss_steps_ = own;
  loss_tokens_ = tokens;
}

}  // namespace goodsim::models::policy
