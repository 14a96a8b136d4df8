#include "models/policy/decoupled_diloco_quorum.h"

#include <algorithm>

namespace goodsim::models::policy {

core::SimTime kth_earliest(std::span<const core::SimTime> ready, uint32_t k,
                           std::vector<core::SimTime>& scratch) {
  if (k == 1) return *std::min_element(ready.begin(), ready.end());
  scratch.assign(ready.begin(), ready.end());
  const auto kth = scratch.begin() + (k - 1);
  std::nth_element(scratch.begin(), kth, scratch.end());
  return *kth;
}

void GraceWindow::observe_quorum(double to_quorum, double pace_sum, uint32_t paced) {
  if (to_quorum >= 0) to_quorum_.add(to_quorum, weight_);
  if (paced > 0) step_.add(pace_sum / paced, weight_);
}

core::Duration GraceWindow::window() const {
  const double slack = tau_ * step_.value() - to_quorum_.value() - sync_.value();
  return core::Duration::from_seconds(gamma_ * std::max(0.0, slack));
}

}  // namespace goodsim::models::policy
