#include "models/loss/scaling_law.h"

#include <algorithm>
#include <cmath>

#include "sim/core/check.h"

namespace goodsim::models::loss {

using scenario::ObjectReader;

ScalingLawConfig ScalingLawConfig::from_json(ObjectReader& r) {
  ScalingLawConfig c;
  c.fits = ScalingFits::from_json(r);
  if (auto b = r.optional_object("batch_sensitivity",
                                 "(a) eta_batch(b) = 1 / (1 + k ln(b / b*)^2)")) {
    c.batch_below = b->number("below", c.batch_below, "k for batches below the optimum", 0);
    c.batch_above = b->number("above", c.batch_above, "k for batches above the optimum", 0);
    c.diloco_tolerance = b->number("diloco_tolerance", c.diloco_tolerance,
                                   "DiLoCo divides k by this (it tolerates larger batches)",
                                   1e-6);
  }
  if (auto s = r.optional_object("staleness", "(b) eta_stale(s) = 1 / (1 + max(0, s - free H) "
                                 "/ (scale H))")) {
    c.staleness_free = s->number("free", c.staleness_free,
                                 "staleness without discount, in units of H", 0);
    c.staleness_scale = s->number("scale", c.staleness_scale,
                                  "excess staleness that halves a contribution, in units of H",
                                  1e-6);
  }
  c.left_out_discount = r.fraction("left_out_discount", c.left_out_discount,
                                   "(c) rho: a merge of n contributors leaving out l active "
                                   "learners keeps 1 - rho l / (n + l) of its tokens");
  return c;
}

void ScalingLawLoss::start(const TrainingShape& shape, core::Rng rng) {
  static_cast<void>(rng);  // deterministic model
  GOODSIM_CHECK(shape.params > 0 && shape.global_batch_tokens > 0);
  GOODSIM_CHECK(shape.learners >= 1 && shape.fragments_p >= 1);
  GOODSIM_CHECK(shape.inner_steps_h > 0 || shape.learners == 1);
  shape_ = shape;
  d_eff_ = 0;
  optimal_batch_ = learner_optimal_batch(data_parallel() ? 1 : shape.learners);
  active_.assign(shape.learners, 1);
  contributing_.assign(shape.learners, 0);
}

double ScalingLawLoss::batch_efficiency(double batch_tokens) const {
  return batch_efficiency(batch_tokens, optimal_batch_);
}

double ScalingLawLoss::batch_efficiency(double batch_tokens, double optimal) const {
  const double x = std::log(batch_tokens / optimal);
  double k = x < 0 ? config_.batch_below : config_.batch_above;
  if (!data_parallel()) k /= config_.diloco_tolerance;
  return 1 / (1 + k * x * x);
}

double ScalingLawLoss::learner_optimal_batch(uint32_t learners) const {
  const uint32_t m = std::max<uint32_t>(learners, 1);
  return config_.fits.optimal_batch(shape_.params, m) / m;
}

double ScalingLawLoss::staleness_efficiency(uint64_t staleness) const {
  const double h = shape_.inner_steps_h;
  const double excess = std::max(0.0, static_cast<double>(staleness) - config_.staleness_free * h);
  return 1 / (1 + excess / (config_.staleness_scale * h));
}

double ScalingLawLoss::left_out_efficiency(uint32_t contributors, uint32_t left_out) const {
  if (left_out == 0) return 1;
  return 1 - config_.left_out_discount * left_out / double(contributors + left_out);
}

void ScalingLawLoss::on_inner_steps(uint32_t m, uint64_t steps, double batch_tokens) {
  GOODSIM_CHECK(m < shape_.learners && batch_tokens > 0);
  if (data_parallel()) {
    d_eff_ += static_cast<double>(steps) * batch_tokens * batch_efficiency(batch_tokens);
  } else if (steps > 0) {
    active_[m] = 1;  // a learner that trains has not left
  }
}

void ScalingLawLoss::on_merge(uint32_t p, const std::vector<Contribution>& contributors) {
  GOODSIM_CHECK(p < shape_.fragments_p);
  if (data_parallel() || contributors.empty()) return;
  // b* follows the learners taking part now (those that have not left), so
  // learners that join shrink everyone's optimal share: B*(N, M) / M falls
  // as M grows (beta_B < 1), the diminishing return of a larger global batch.
  uint32_t active = 0;
  for (uint32_t m = 0; m < shape_.learners; ++m) active += active_[m];
  for (const Contribution& c : contributors) active += active_[c.learner] ? 0 : 1;
  const double optimal = learner_optimal_batch(active);
  double tokens = 0;
  for (const Contribution& c : contributors) {
    GOODSIM_CHECK(c.learner < shape_.learners && !contributing_[c.learner]);
    GOODSIM_CHECK(c.weight >= 0 && c.tokens >= 0);
    contributing_[c.learner] = 1;
    if (c.tokens <= 0 || c.weight <= 0) continue;
    tokens += c.tokens * batch_efficiency(c.weight / c.tokens, optimal) *
              staleness_efficiency(c.staleness);
  }
  uint32_t left_out = 0;
  for (uint32_t m = 0; m < shape_.learners; ++m) {
    if (active_[m] && !contributing_[m]) ++left_out;
  }
  for (const Contribution& c : contributors) contributing_[c.learner] = 0;
  const auto n = static_cast<uint32_t>(contributors.size());
  d_eff_ += tokens * left_out_efficiency(n, left_out) / shape_.fragments_p;
}

void ScalingLawLoss::on_receive(uint32_t m, uint32_t p) {
  GOODSIM_CHECK(m < shape_.learners && p < shape_.fragments_p);
}

void ScalingLawLoss::on_leave(uint32_t m) {
  GOODSIM_CHECK(m < shape_.learners);
  active_[m] = 0;
}

void ScalingLawLoss::on_rejoin(uint32_t m) {
  GOODSIM_CHECK(m < shape_.learners);
  active_[m] = 1;
}

double ScalingLawLoss::loss() const {
  return config_.fits.loss(shape_.params, d_eff_, shape_.learners, shape_.inner_steps_h);
}

}  // namespace goodsim::models::loss
