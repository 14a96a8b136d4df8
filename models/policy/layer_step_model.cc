#include "models/policy/layer_step_model.h"

#include <algorithm>
#include <numeric>

#include "sim/core/check.h"

namespace goodsim::models::policy {

LayerStepModel::LayerStepModel(const std::vector<double>& layer_params, core::Duration compute)
    : compute_(compute) {
  GOODSIM_CHECK(!layer_params.empty() && compute > core::Duration::zero());
  const double total = std::accumulate(layer_params.begin(), layer_params.end(), 0.0);
  const double unit = compute.seconds_f() / (3.0 * total - layer_params.front());
  // Forward of every layer, then backward from the top: A_l, W_l per layer.
  double t = unit * total;
  for (size_t i = layer_params.size(); i-- > 0;) {
    const double p = layer_params[i];
    GOODSIM_CHECK(p > 0);
    if (i > 0) t += unit * p;  // A_l; layer 1 has none
    t += unit * p;             // W_l
    share_.push_back(p / total);
    release_.push_back(t);
  }
}

core::Duration LayerStepModel::step_time(const ReduceCost& cost) const {
  const double intra = cost.intra.seconds_f();
  const double wan = cost.wan.seconds_f();
  double intra_free = 0;  // when each link finishes its last reduce so far
  double wan_free = 0;
  for (size_t i = 0; i < share_.size(); ++i) {
    intra_free = std::max(intra_free, release_[i]) + intra * share_[i];
    wan_free = std::max(wan_free, intra_free) + wan * share_[i];
  }
  const double end = std::max(wan_free + cost.latency.seconds_f(), compute_.seconds_f());
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
