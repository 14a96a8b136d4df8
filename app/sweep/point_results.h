// The results of one grid point of a sweep: a row per (seed index, policy).
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "app/sweep/results_file.h"

namespace goodsim::app::sweep {

class PointResults {
 public:
  explicit PointResults(size_t policies) : policies_(policies) {}

  size_t policies() const { return policies_; }
  // Rows for seed indices >= seeds() are absent.
  size_t seeds() const { return rows_.size(); }
  void reserve_seeds(size_t n);

  // REQUIRES: row.policy < policies(); k is the row's seed index.
  void put(size_t k, ResultRow row);
  bool has(size_t k, size_t policy) const;
  // Every policy has its row for seed index k.
  bool complete(size_t k) const;
  // The policies without a row for seed index k, in order.
  std::vector<size_t> missing(size_t k) const;

  // Metric m of `policy` for seed indices 0..n-1 (empty where absent).
  std::vector<std::optional<double>> metric(size_t policy, size_t m, size_t n) const;
  // The rows of seed indices 0..n-1 in canonical order.
  void append_rows(size_t n, std::vector<ResultRow>& out) const;

 private:
  size_t policies_;
  std::vector<std::vector<std::optional<ResultRow>>> rows_;  // [k][policy]
};

}  // namespace goodsim::app::sweep
