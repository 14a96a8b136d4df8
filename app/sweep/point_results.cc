#include "app/sweep/point_results.h"

#include "sim/core/check.h"

namespace goodsim::app::sweep {

void PointResults::reserve_seeds(size_t n) {
  if (rows_.size() < n) rows_.resize(n, std::vector<std::optional<ResultRow>>(policies_));
}

void PointResults::put(size_t k, ResultRow row) {
  GOODSIM_CHECK(row.policy < policies_);
  reserve_seeds(k + 1);
  const size_t policy = row.policy;
  rows_[k][policy] = std::move(row);
}

bool PointResults::has(size_t k, size_t policy) const {
  return k < rows_.size() && rows_[k][policy].has_value();
}

bool PointResults::complete(size_t k) const {
  for (size_t i = 0; i < policies_; ++i) {
    if (!has(k, i)) return false;
  }
  return true;
}

std::vector<size_t> PointResults::missing(size_t k) const {
  std::vector<size_t> out;
  for (size_t i = 0; i < policies_; ++i) {
    if (!has(k, i)) out.push_back(i);
  }
  return out;
}

std::vector<std::optional<double>> PointResults::metric(size_t policy, size_t m, size_t n) const {
  std::vector<std::optional<double>> out(n);
  for (size_t k = 0; k < n && k < rows_.size(); ++k) {
    if (rows_[k][policy]) out[k] = rows_[k][policy]->metrics[m];
  }
  return out;
}

void PointResults::append_rows(size_t n, std::vector<ResultRow>& out) const {
  for (size_t k = 0; k < n && k < rows_.size(); ++k) {
    for (const auto& row : rows_[k]) {
      if (row) out.push_back(*row);
    }
  }
}

}  // namespace goodsim::app::sweep
