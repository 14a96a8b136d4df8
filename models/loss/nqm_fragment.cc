#include "models/loss/nqm_fragment.h"

#include "sim/core/check.h"

namespace goodsim::models::loss::detail {

void FragmentMoments::reset(Index begin, const Eigen::ArrayXd& theta0, uint32_t learners) {
  begin_ = begin;
  size_ = theta0.size();
  slots_ = Index{learners} + 2;
  const Eigen::ArrayXd zero = Eigen::ArrayXd::Zero(size_);
  const auto slots = static_cast<size_t>(slots_);
  mean_.assign(slots, zero);
  cov_.assign(slots * (slots + 1) / 2, zero);
  refs_.assign(slots, 0);
  live_.assign(slots, 0);
  live_[kMomentum] = 1;
  g_ = 1;
  live_[g_] = 1;
  refs_[g_] = static_cast<int>(learners);
  mean_[g_] = theta0;
  version_.assign(learners, g_);
  factor_.assign(learners, Eigen::ArrayXd::Ones(size_));
  noise_.assign(learners, zero);
  coeff_.assign(slots, zero);
  in_use_.assign(slots, 0);
  used_.clear();
  used_.reserve(slots);
  gathered_noise_ = zero;
  for (int k = 0; k < 2; ++k) {
    target_coeff_[k].assign(slots, zero);
    cross_[k].assign(slots + 1, zero);
  }
  for (Eigen::ArrayXd& p : pair_) p = zero;
}

void FragmentMoments::advance_learner(uint32_t m, const ArrayRef& rho, const ArrayRef& q) {
  factor_[m] *= rho;
  noise_[m] = rho.square() * noise_[m] + q;
}

void FragmentMoments::advance_global(const ArrayRef& rho, const ArrayRef& q) {
  mean_[g_] *= rho;
  for (Index r = 0; r < slots_; ++r) {
    if (live_[r] && r != g_) cov(g_, r) *= rho;
  }
  cov(g_, g_) = rho.square() * cov(g_, g_) + q;
}

void FragmentMoments::clear_gather() {
  for (Index s : used_) in_use_[s] = 0;
  used_.clear();
  gathered_noise_.setZero();
}

FragmentMoments::Combination FragmentMoments::gather(const std::vector<LearnerTerm>& terms,
                                                     bool from_base) {
  double a = 0;
  for (const LearnerTerm& t : terms) a += t.coeff;
  if (from_base) a = 0;
  clear_gather();
  for (const LearnerTerm& t : terms) {
    const Index s = version_[t.learner];
    if (!in_use_[s]) {
      in_use_[s] = 1;
      used_.push_back(s);
      coeff_[s].setZero();
    }
    if (from_base) {
      coeff_[s] += t.coeff * (1.0 - factor_[t.learner]);
    } else {
      coeff_[s] += t.coeff * factor_[t.learner];
    }
    gathered_noise_ += t.coeff * t.coeff * noise_[t.learner];
  }
  return {a, from_base ? 1.0 : -1.0};
}

// cross_[k][r] = Cov(target k, slot r) for every live slot r, and the target's
// mean in cross_[k][slots_], from the source slots (g, u, used_).
void FragmentMoments::cross_terms(int k) {
  auto add_sources = [&](Eigen::ArrayXd& out, auto&& value_of) {
    out = target_coeff_[k][g_] * value_of(g_) + target_coeff_[k][kMomentum] * value_of(kMomentum);
    for (Index s : used_) {
      if (s != g_) out += target_coeff_[k][s] * value_of(s);
    }
  };
  for (Index r = 0; r < slots_; ++r) {
    if (!live_[r]) continue;
    add_sources(cross_[k][r], [&](Index s) -> const Eigen::ArrayXd& { return cov(s, r); });
  }
  add_sources(cross_[k][slots_], [&](Index s) -> const Eigen::ArrayXd& { return mean_[s]; });
}

// Cov(target k, target l) = sum over sources s of coeff_l[s] Cov(target k, s),
// plus the shared noise term.
void FragmentMoments::target_pair_into(int k, int l, Eigen::ArrayXd& out) {
  out = target_coeff_[l][g_] * cross_[k][g_] +
        target_coeff_[l][kMomentum] * cross_[k][kMomentum] +
        target_noise_[k] * target_noise_[l] * gathered_noise_;
  for (Index s : used_) {
    if (s != g_) out += target_coeff_[l][s] * cross_[k][s];
  }
}

void FragmentMoments::release(Index slot) { live_[slot] = 0; }

Index FragmentMoments::free_slot() const {
  for (Index s = 1; s < slots_; ++s) {
    if (!live_[s]) return s;
  }
  GOODSIM_CHECK_MSG(false, "nqm fragment: no free version slot");
  return 0;
}

void FragmentMoments::write_targets(Index g_new) {
  live_[g_new] = 1;
  mean_[g_new] = cross_[0][slots_];
  mean_[kMomentum] = cross_[1][slots_];
  for (Index r = 1; r < slots_; ++r) {
    if (!live_[r] || r == g_new) continue;
    cov(g_new, r) = cross_[0][r];
    cov(kMomentum, r) = cross_[1][r];
  }
  cov(g_new, g_new) = pair_[0];
  cov(g_new, kMomentum) = pair_[1];
  cov(kMomentum, kMomentum) = pair_[2];
}

void FragmentMoments::merge(const std::vector<LearnerTerm>& terms, bool from_base, double lr,
                            double mu) {
  const auto [a, sign] = gather(terms, from_base);
  // Delta = a g + sign X - e, X = sum_s coeff_[s] v_s:
  //   u' = mu u + Delta,   g' = g - lr (1 + mu) Delta - lr mu^2 u.
  const double k = lr * (1 + mu);
  target_coeff_[0][g_].setConstant(1 - k * a);
  target_coeff_[0][kMomentum].setConstant(-lr * mu * mu);
  target_coeff_[1][g_].setConstant(a);
  target_coeff_[1][kMomentum].setConstant(mu);
  for (Index s : used_) {
    if (s != g_) {
      target_coeff_[0][s].setZero();
      target_coeff_[1][s].setZero();
    }
    target_coeff_[0][s] -= k * sign * coeff_[s];
    target_coeff_[1][s] += sign * coeff_[s];
  }
  target_noise_[0] = k;
  target_noise_[1] = -1;
  cross_terms(0);
  cross_terms(1);
  target_pair_into(0, 0, pair_[0]);
  target_pair_into(0, 1, pair_[1]);
  target_pair_into(1, 1, pair_[2]);
  for (const LearnerTerm& t : terms) --refs_[version_[t.learner]];
  for (Index s : used_) {
    if (s != g_ && refs_[s] == 0) release(s);
  }
  const Index g_new = refs_[g_] == 0 ? g_ : free_slot();
  write_targets(g_new);
  for (const LearnerTerm& t : terms) {
    version_[t.learner] = g_new;
    ++refs_[g_new];
    factor_[t.learner].setOnes();
    noise_[t.learner].setZero();
  }
  g_ = g_new;
  clear_gather();
}

double FragmentMoments::expected_square_delta(const std::vector<LearnerTerm>& terms,
                                              bool from_base) {
  const auto [b, sign] = gather(terms, from_base);
  // Y = b g + sign sum_s coeff_[s] v_s - e.
  std::vector<Index> sources{g_};
  target_coeff_[0][g_].setConstant(b);
  for (Index s : used_) {
    if (s != g_) {
      target_coeff_[0][s].setZero();
      sources.push_back(s);
    }
    target_coeff_[0][s] += sign * coeff_[s];
  }
  Eigen::ArrayXd& m = cross_[0][slots_];
  m.setZero();
  double var = gathered_noise_.sum();
  for (Index s : sources) {
    m += target_coeff_[0][s] * mean_[s];
    Eigen::ArrayXd& t = cross_[0][s];
    t.setZero();
    for (Index s2 : sources) t += target_coeff_[0][s2] * cov(s, s2);
    var += (target_coeff_[0][s] * t).sum();
  }
  clear_gather();
  return m.square().sum() + var;
}

void FragmentMoments::receive(uint32_t m) {
  const Index s = version_[m];
  if (s != g_) {
    if (--refs_[s] == 0) release(s);
    version_[m] = g_;
    ++refs_[g_];
  }
  factor_[m].setOnes();
  noise_[m].setZero();
}

double FragmentMoments::excess(const ArrayRef& h) const {
  return 0.5 * (h * (mean_[g_].square() + cov(g_, g_))).sum();
}

double FragmentMoments::learner_mean(uint32_t m, Index i) const {
  return factor_[m](i) * mean_[version_[m]](i);
}

double FragmentMoments::learner_variance(uint32_t m, Index i) const {
  const double f = factor_[m](i);
  return f * f * cov(version_[m], version_[m])(i) + noise_[m](i);
}

}  // namespace goodsim::models::loss::detail
