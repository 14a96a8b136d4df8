#include "models/policy/layer_step_model.h"

#include <algorithm>
#include <numeric>

#include "sim/core/check.h"

namespace goodsim::models::policy {

LayerStepModel::LayerStepModel(const std::vector<double>& layer_params, core::Duration compute)
    : params_(layer_params), compute_(compute) {
  GOODSIM_CHECK(!layer_params.empty() && compute > core::Duration::zero());
  const double total = std::accumulate(layer_params.begin(), layer_params.end(), 0.0);
  const double unit = compute.seconds_f() / (3.0 * total - layer_params.front());
  const size_t n = layer_params.size();
  release_.assign(n, 0.0);
  forward_.assign(n, 0.0);
  double t = 0;
  for (size_t l = 0; l < n; ++l) {
    GOODSIM_CHECK(layer_params[l] > 0);
    forward_[l] = t;
    t += unit * layer_params[l];
  }
  // Backward from the top: A_l, W_l per layer (layer 1 has no A).
  for (size_t l = n; l-- > 0;) {
    if (l > 0) t += unit * layer_params[l];
    t += unit * layer_params[l];
    release_[l] = t;
  }
}

double LayerStepModel::delay_s(const std::vector<bool>& in, const ReduceCost& cost,
                               uint64_t tau) const {
  double sum = 0;
  for (size_t l = 0; l < params_.size(); ++l) sum += in[l] ? params_[l] : 0.0;
  const double intra = cost.intra.seconds_f() / sum;
  const double wan = cost.wan.seconds_f() / sum;
  const double latency = cost.latency.seconds_f();
  const double gate = compute_.seconds_f() * (1.0 + static_cast<double>(tau));
  double intra_free = 0;  // when each link finishes its last reduce so far
  double wan_free = 0;
  double delay = 0;
  for (size_t l = params_.size(); l-- > 0;) {  // issue order: layer L first
    if (!in[l]) continue;
    intra_free = std::max(intra_free, release_[l]) + intra * params_[l];
    wan_free = std::max(wan_free, intra_free) + wan * params_[l];
    delay = std::max(delay, wan_free + latency - (gate + forward_[l]));
  }
  return delay;
}

core::Duration LayerStepModel::exchange_delay(const std::vector<uint32_t>& layers,
                                              const ReduceCost& cost, uint64_t tau) const {
  std::vector<bool> in(params_.size(), false);
  for (uint32_t l : layers) {
    GOODSIM_CHECK(l < params_.size());
    in[l] = true;
  }
  if (layers.empty()) return core::Duration::zero();
  return core::Duration::from_seconds(delay_s(in, cost, tau));
}

core::Duration LayerStepModel::step_time(const ReduceCost& cost) const {
  const double end = compute_.seconds_f() + delay_s(std::vector<bool>(params_.size(), true), cost, 0);
  return std::max(compute_, core::Duration::from_seconds(end));
}

core::Duration LayerStepModel::exposed(const ReduceCost& cost) {
  const auto key = std::make_tuple(cost.intra.ns(), cost.wan.ns(), cost.latency.ns());
  if (auto it = cache_.find(key); it != cache_.end()) return it->second;
  if (cache_.size() >= kMaxCached) cache_.clear();
  const core::Duration d = step_time(cost) - compute_;
  cache_.emplace(key, d);
  return d;
}

}  // namespace goodsim::models::policy
