#include "models/policy/decoupled_diloco_learner.h"

#include <algorithm>
#include <iterator>

#include "models/loss_tracker.h"

namespace goodsim::models::policy {
namespace {

int64_t floor_div(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

}  // namespace

int64_t latest_report(int64_t s, uint64_t t, uint64_t h) {
  const auto hh = static_cast<int64_t>(h);
  const auto tt = static_cast<int64_t>(t);
  const int64_t c = tt + floor_div(s - tt, hh) * hh;
  return c >= 1 ? c : 0;
}

int64_t next_report(int64_t after, uint64_t t, uint64_t h) {
  const auto hh = static_cast<int64_t>(h);
  const auto tt = static_cast<int64_t>(t);
  int64_t c = tt + (floor_div(after - tt, hh) + 1) * hh;
  while (c < 1) c += hh;
  return c;
}

DecoupledDilocoLearner::DecoupledDilocoLearner(RunContext& ctx, uint32_t index,
                                               cluster::SliceId first, cluster::SliceId end,
                                               const ElasticSpec& spec,
                                               double tokens_per_slice_step,
                                               ElasticGroup::Listener listener)
    : ctx_(ctx),
      index_(index),
      site_(ctx.layout().site_of(first)),
      tokens_per_slice_step_(tokens_per_slice_step),
      group_(std::make_unique<ElasticGroup>(ctx, ctx.policy_name + ".learner" +
                                                     std::to_string(index),
                                            first, end, spec, tokens_per_slice_step,
                                            std::move(listener))),
      history_(tokens_per_slice_step) {}

uint64_t DecoupledDilocoLearner::own_now() const {
  const core::SimTime now = ctx_.sim.now();
  if (cached_at_ != now) {
    cached_own_ = steps_reached(group_->clock(), now);
    cached_at_ = now;
  }
  return cached_own_;
}

int64_t DecoupledDilocoLearner::sched_of(uint64_t own) const {
  auto it = clock_.end();
  while (it != clock_.begin() && std::prev(it)->own > own) --it;
  const ClockSegment& seg = it == clock_.begin() ? clock_.front() : *std::prev(it);
  return static_cast<int64_t>(own) + seg.offset;
}

uint64_t DecoupledDilocoLearner::own_of(int64_t c) const {
  for (size_t i = clock_.size(); i-- > 0;) {
    const ClockSegment& seg = clock_[i];
    if (i > 0 && c < static_cast<int64_t>(seg.own) + seg.offset) continue;
    int64_t own = c - seg.offset;
    // Past the end of an older segment: jumped over, made at the jump.
    if (i + 1 < clock_.size()) own = std::min(own, static_cast<int64_t>(clock_[i + 1].own));
    return static_cast<uint64_t>(std::max<int64_t>(0, own));
  }
  return 0;
}

void DecoupledDilocoLearner::adopt_clock(int64_t sched) {
  const uint64_t own = own_now();
  clock_.assign(1, ClockSegment{own, sched - static_cast<int64_t>(own)});
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

std::optional<core::SimTime> DecoupledDilocoLearner::time_of_own(uint64_t n) const {
  if (n > own_now()) {
    if (group_->mode() != ElasticGroup::Mode::kRunning) return std::nullopt;
    return group_->clock().time_of_pending_step(n);  // n > own_now() >= clock steps
  }
  return history_.time_of_step(n);
}

}  // namespace goodsim::models::policy
