#include "models/loss/nqm_steps.h"

#include <cmath>

namespace goodsim::models::loss::detail {

void StepPowers::reset(const Eigen::ArrayXd& h, double eta) {
  log_r_ = (-eta * h).log1p();
  pow_ = {1.0 - eta * h};  // exact for one step
  one_minus_ = {eta * h};
}

void StepPowers::grow(size_t j) {
  while (pow_.size() <= j) {
    const Eigen::ArrayXd x = std::ldexp(1.0, static_cast<int>(pow_.size())) * log_r_;
    pow_.push_back(x.exp());
    one_minus_.push_back(-x.expm1());
  }
}

void StepPowers::power(uint64_t k, Eigen::Index begin, Eigen::Index n, Eigen::ArrayXd& rho,
                       Eigen::ArrayXd& omega) {
  bool first = true;
  for (size_t j = 0; k != 0; ++j, k >>= 1) {
    if ((k & 1) == 0) continue;
    grow(j);
    const auto p = pow_[j].segment(begin, n);
    const auto q = one_minus_[j].segment(begin, n);
    if (first) {
      rho.head(n) = p;
      omega.head(n) = q;
      first = false;
    } else {
      omega.head(n) += rho.head(n) * q;
      rho.head(n) *= p;
    }
  }
}

void StepLog::add(uint64_t steps, double batch_tokens) {
  if (steps == 0) return;
  if (runs_.empty() || runs_.back().batch != batch_tokens) runs_.push_back({total_, batch_tokens});
  total_ += steps;
}

void StepLog::trim(uint64_t from) {
  size_t drop = 0;
  while (drop + 1 < runs_.size() && runs_[drop + 1].start <= from) ++drop;
  runs_.erase(runs_.begin(), runs_.begin() + static_cast<std::ptrdiff_t>(drop));
}

}  // namespace goodsim::models::loss::detail
