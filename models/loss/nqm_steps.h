// Internal to models/loss (it includes Eigen): never include it from another
// folder. The inner-step bookkeeping of the nqm tier.
#pragma once

#include <cstdint>
#include <vector>

#include <Eigen/Dense>

namespace goodsim::models::loss::detail {

// r^k and 1 - r^k per dimension (r = 1 - eta h) without a transcendental per
// call: r^(2^j) and 1 - r^(2^j) are tabulated on first use, and the powers
// are combined over the bits of k with 1 - ab = (1 - a) + a (1 - b), which
// has no cancellation when eta h k is tiny. Cost O(popcount(k) n).
class StepPowers {
 public:
  void reset(const Eigen::ArrayXd& h, double eta);
  // rho.head(n) = r^k, omega.head(n) = 1 - r^k on dimensions [begin, begin + n).
  // REQUIRES: k > 0, rho and omega have at least n entries.
  void power(uint64_t k, Eigen::Index begin, Eigen::Index n, Eigen::ArrayXd& rho,
             Eigen::ArrayXd& omega);

 private:
  void grow(size_t j);

  Eigen::ArrayXd log_r_;
  std::vector<Eigen::ArrayXd> pow_;
  std::vector<Eigen::ArrayXd> one_minus_;
};

// One learner's inner steps as runs of equal batch size, counted in steps
// since start. Fragments apply the steps lazily, each from where it last
// stopped (a merge or receive of that fragment needs them; a run of many
// on_inner_steps events at one batch size is one run).
class StepLog {
 public:
  void clear() {
    runs_.clear();
    total_ = 0;
  }
  void add(uint64_t steps, double batch_tokens);
  uint64_t total() const { return total_; }
  size_t runs() const { return runs_.size(); }
  // f(steps, batch_tokens) for the steps after step `from`, oldest first.
  template <class F>
  void since(uint64_t from, F&& f) const {
    for (size_t j = 0; j < runs_.size(); ++j) {
      const uint64_t end = j + 1 < runs_.size() ? runs_[j + 1].start : total_;
      const uint64_t begin = runs_[j].start > from ? runs_[j].start : from;
      if (end > begin) f(end - begin, runs_[j].batch);
    }
  }
  // Forgets the runs that end at or before step `from` (every fragment has
  // applied them).
  void trim(uint64_t from);

 private:
  struct Run {
    uint64_t start = 0;
    double batch = 0;
  };
  std::vector<Run> runs_;
  uint64_t total_ = 0;
};

}  // namespace goodsim::models::loss::detail
