// Internal to models/loss (it includes Eigen): never include it from another
// folder.
//
// FragmentMoments: the exact Gaussian moments of one nqm fragment (a block of
// dimensions, each independent of the others). Per dimension the variables
// are the global fragment g, the outer momentum u and the M learner copies;
// they are jointly Gaussian because every operation is linear with
// independent Gaussian noise.
//
// Representation (cheap in the common case). Besides u, the fragment keeps
// "versions": values the global fragment took at some merge, while a learner
// still holds a copy derived from them. A learner's copy is
//   x_m = F_m * v_m + e_m,
// v_m the version it last received, F_m the product of its SGD decays r^k
// since (per dimension), e_m its own SGD noise since (variance N_m,
// independent of everything else). Means and covariances are kept among the
// live versions and u only; a version nobody holds any more is dropped. When
// learners merge in step, one or two versions are live, so a merge of n
// contributors costs O(n d_p), d_p = the fragment's dimensions; the worst case
// (every learner on its own version) is O(M^2 d_p). Slot 0 is u; at most
// M + 1 versions are live at once.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include <Eigen/Dense>

namespace goodsim::models::loss::detail {

using Index = Eigen::Index;
using ArrayRef = Eigen::Ref<const Eigen::ArrayXd>;

// coeff * (learner's copy).
struct LearnerTerm {
  uint32_t learner = 0;
  double coeff = 0;
};

class FragmentMoments {
 public:
  // Dimensions [begin, begin + theta0.size()); the global fragment and all M
  // learner copies start at theta0 (deterministic), u at 0.
  void reset(Index begin, const Eigen::ArrayXd& theta0, uint32_t learners);
  Index begin() const { return begin_; }
  Index size() const { return size_; }

  // x_m <- rho x_m + N(0, q) noise (arrays of size()).
  void advance_learner(uint32_t m, const ArrayRef& rho, const ArrayRef& q);
  // g <- rho g + N(0, q) noise (data parallel: the steps act on g itself).
  void advance_global(const ArrayRef& rho, const ArrayRef& q);
  // Outer step with Delta = sum_c coeff_c Delta_c: u <- mu u + Delta,
  // g <- g - lr (Delta + mu u); then every contributor copies g. The outer
  // gradient of a copy is Delta_c = g - x_c (from_base false: the syncer's
  // fragment minus the copy) or v_c - x_c (from_base true: the copy's own
  // progress since it received its version). REQUIRES: distinct learners.
  void merge(const std::vector<LearnerTerm>& terms, bool from_base, double lr, double mu);
  // E || sum_c coeff_c Delta_c ||^2 over the fragment.
  double expected_square_delta(const std::vector<LearnerTerm>& terms, bool from_base);
  // x_m <- g.
  void receive(uint32_t m);

  // 1/2 sum_i h_i E[g_i^2] (h: the fragment's eigenvalues).
  double excess(const ArrayRef& h) const;
  // i within the fragment.
  double global_mean(Index i) const { return mean_[g_](i); }
  double global_variance(Index i) const { return cov(g_, g_)(i); }
  double learner_mean(uint32_t m, Index i) const;
  double learner_variance(uint32_t m, Index i) const;

 private:
  static constexpr Index kMomentum = 0;
  Index pair(Index j, Index k) const {
    if (j > k) std::swap(j, k);
    return j * slots_ - j * (j - 1) / 2 + (k - j);
  }
  Eigen::ArrayXd& cov(Index j, Index k) { return cov_[pair(j, k)]; }
  const Eigen::ArrayXd& cov(Index j, Index k) const { return cov_[pair(j, k)]; }
  // coeff_[s] = sum of coeff_c F_c (from_base: coeff_c (1 - F_c)) over the
  // contributors holding version s, gathered_noise_ = sum coeff_c^2 N_c;
  // used_ lists the slots with a coefficient. Then
  //   sum_c coeff_c Delta_c = a g + sign sum_s coeff_[s] v_s - e,  Var(e) = gathered_noise_,
  // with (a, sign) = (sum_c coeff_c, -1), or (0, +1) from the base: returned.
  struct Combination {
    double a = 0;
    double sign = -1;
  };
  Combination gather(const std::vector<LearnerTerm>& terms, bool from_base);
  void clear_gather();
  void cross_terms(int k);
  void target_pair_into(int k, int l, Eigen::ArrayXd& out);
  void release(Index slot);
  Index free_slot() const;
  void write_targets(Index g_new);

  Index begin_ = 0;
  Index size_ = 0;
  Index slots_ = 0;
  Index g_ = 1;
  std::vector<Eigen::ArrayXd> mean_;   // per slot
  std::vector<Eigen::ArrayXd> cov_;    // upper triangle over slots
  std::vector<int> refs_;              // learners holding each version
  std::vector<uint8_t> live_;
  std::vector<Index> version_;         // per learner
  std::vector<Eigen::ArrayXd> factor_; // F_m
  std::vector<Eigen::ArrayXd> noise_;  // N_m
  // Merge scratch: gathered coefficients, then per target (g', u') the
  // coefficient of every source slot, the noise multiplier and the new
  // cross covariances / mean.
  std::vector<Eigen::ArrayXd> coeff_;
  std::vector<uint8_t> in_use_;
  std::vector<Index> used_;
  Eigen::ArrayXd gathered_noise_;
  std::vector<Eigen::ArrayXd> target_coeff_[2];
  double target_noise_[2] = {0, 0};
  std::vector<Eigen::ArrayXd> cross_[2];  // per slot, plus the mean in slot slots_
  Eigen::ArrayXd pair_[3];                // (g', g'), (g', u'), (u', u')
};

}  // namespace goodsim::models::loss::detail
