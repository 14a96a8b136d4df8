#include "models/loss/nqm.h"

#include <algorithm>
#include <cmath>

#include "models/enum_choice.h"
#include "models/loss/nqm_calibration.h"
#include "models/loss/nqm_fragment.h"
#include "models/loss/nqm_steps.h"
#include "sim/core/check.h"

namespace goodsim::models::loss {
namespace {

using detail::FragmentMoments;
using detail::Index;
using detail::LearnerTerm;
using scenario::ObjectReader;

void read_optimizer(ObjectReader& r, NqmConfig& c) {
  c.lr = r.unit("1").number("lr", c.lr, "SGD learning rate of data-parallel steps, eta h_1 (stable "
                  "below 2)", 1e-9, 1.99);
  c.outer_lr = r.unit("1").number("outer_lr", c.outer_lr, "outer Nesterov learning rate", 1e-9, 10);
  c.outer_momentum = r.fraction("outer_momentum", c.outer_momentum, "outer Nesterov momentum",
                                0, 0.999);
  c.inner_lr_scale = r.unit("x").optional_number("inner_lr_scale", "DiLoCo's inner learning rate / lr "
                                       "(default (1 - outer_momentum) / outer_lr)", 1e-9);
  c.radial_directional =
      read_enum(r, "averaging", {{"mean", false}, {"radial_directional", true}},
                c.radial_directional,
                "merge: token-weighted mean, or radial-directional (norms and directions "
                "averaged separately)");
  c.from_base = read_enum(r, "outer_gradient", {{"global", false}, {"base", true}}, c.from_base,
                          "a copy's outer gradient: the syncer's fragment minus the copy, or "
                          "the copy's progress since its base");
  c.calibrate_diloco = r.boolean("calibrate_diloco", c.calibrate_diloco, "scale DiLoCo's loss "
                                 "so synchronous DiLoCo at b* reaches the published per-M fit "
                                 "at 20N");
  if (r.describing()) return;
  const double inner = c.lr * c.inner_lr_scale.value_or((1 - c.outer_momentum) / c.outer_lr);
  if (inner >= 2) r.fail("inner_lr_scale", "DiLoCo's inner learning rate must stay below 2");
}

}  // namespace

NqmConfig NqmConfig::from_json(ObjectReader& r) {
  NqmConfig c;
  c.fits = ScalingFits::from_json(r);
  c.dims = static_cast<uint32_t>(r.count("dims", c.dims, "d: dimensions of the quadratic "
                                         "(cost per event is O(d), memory O(M^2 d))", 2, 1 << 16));
  c.window = r.unit("x").number("window", c.window, "the loss follows a power law in the steps from "
                      "budget / window to window x budget (sets the spectrum)", 1.000001);
  c.spectrum_exponent = r.unit("1").optional_number("spectrum_exponent", "p of h_i = i^-p (default "
                                          "from window)", 1e-3, 100);
  c.noise_scale = r.unit("x").number("noise_scale", c.noise_scale, "multiplies the calibrated gradient "
                           "noise (0: noise-free)", 0);
  read_optimizer(r, c);
  return c;
}

struct NqmLoss::Impl {
  TrainingShape shape;
  NqmCalibration cal;
  bool dp = true;
  Eigen::ArrayXd h;
  detail::StepPowers powers;   // of the learners' SGD (DP: of the global model)
  Eigen::ArrayXd noise_unit;   // eta c / (2 - eta h): stationary variance x batch
  std::vector<FragmentMoments> fragments;  // DP: one, all dimensions
  std::vector<double> excess;  // per fragment, 1/2 sum h E[g^2]
  std::vector<detail::StepLog> logs;       // per learner
  std::vector<uint64_t> applied;           // [m * P + p]: steps of m applied to p
  Eigen::ArrayXd rho, omega, q;            // scratch, for memo's key
  struct {
    uint64_t k = 0;
    double b = 0;
    Index begin = -1, n = 0;
  } memo;  // learners in step share (k, b): compute their step moments once
  std::vector<LearnerTerm> terms;          // scratch

  uint32_t fragment_of(uint32_t i) const;
  // Applies learner m's logged steps to fragment p.
  void flush(uint32_t m, uint32_t p);
  // rho, omega, q of k steps at batch b on fragment f's dimensions.
  void step_moments(uint64_t k, double b, const FragmentMoments& f);
  void update_excess(uint32_t p) {
    const FragmentMoments& f = fragments[p];
    excess[p] = f.excess(h.segment(f.begin(), f.size()));
  }
  void set_weights(const std::vector<Contribution>& cs);
  void radial_directional(FragmentMoments& f, bool from_base);
};

uint32_t NqmLoss::Impl::fragment_of(uint32_t i) const {
  uint32_t p = 0;
  while (p + 1 < fragments.size() && fragments[p + 1].begin() <= Index{i}) ++p;
  return p;
}

void NqmLoss::Impl::step_moments(uint64_t k, double b, const FragmentMoments& f) {
  const Index n = f.size();
  if (memo.k == k && memo.b == b && memo.begin == f.begin() && memo.n == n) return;
  memo = {k, b, f.begin(), n};
  powers.power(k, f.begin(), n, rho, omega);
  // Noise of k steps: eta c / (b (2 - eta h)) (1 - r^2k), 1 - r^2k = (1 - r^k)(1 + r^k).
  q.head(n) = noise_unit.segment(f.begin(), n) * omega.head(n) * (1.0 + rho.head(n)) / b;
}

void NqmLoss::Impl::flush(uint32_t m, uint32_t p) {
  uint64_t& done = applied[size_t{m} * shape.fragments_p + p];
  const detail::StepLog& log = logs[m];
  if (done == log.total()) return;
  FragmentMoments& f = fragments[p];
  const Index n = f.size();
  log.since(done, [&](uint64_t k, double b) {
    step_moments(k, b, f);
    if (dp) {
      f.advance_global(rho.head(n), q.head(n));  // data parallel: the steps are the model's
    } else {
      f.advance_learner(m, rho.head(n), q.head(n));
    }
  });
  done = log.total();
  if (dp) update_excess(p);
  if (log.runs() > 4) {
    uint64_t oldest = done;
    for (size_t r = 0; r < fragments.size(); ++r) {
      oldest = std::min(oldest, applied[size_t{m} * shape.fragments_p + r]);
    }
    logs[m].trim(oldest);
  }
}

NqmLoss::NqmLoss(NqmConfig config) : config_(std::move(config)) {}
NqmLoss::~NqmLoss() = default;

void NqmLoss::start(const TrainingShape& shape, core::Rng rng) {
  static_cast<void>(rng);  // exact moments: nothing is sampled
  GOODSIM_CHECK(shape.params > 0 && shape.global_batch_tokens > 0);
  GOODSIM_CHECK(shape.learners >= 1 && shape.fragments_p >= 1);
  GOODSIM_CHECK(shape.inner_steps_h > 0 || shape.learners == 1);
  impl_ = std::make_unique<Impl>();
  Impl& s = *impl_;
  s.shape = shape;
  s.dp = shape.inner_steps_h == 0;
  Eigen::ArrayXd theta0;
  s.cal = detail::calibrate(config_, shape, s.h, theta0);
  s.powers.reset(s.h, s.cal.inner_lr);
  s.noise_unit = s.cal.inner_lr * s.cal.noise / (2.0 - s.cal.inner_lr * s.h);
  const Index d = s.h.size();
  const Index parts = s.dp ? 1 : shape.fragments_p;
  s.fragments.resize(static_cast<size_t>(parts));
  for (Index p = 0; p < parts; ++p) {
    const Index lo = p * d / parts, hi = (p + 1) * d / parts;
    s.fragments[p].reset(lo, theta0.segment(lo, hi - lo), shape.learners);
  }
  s.excess.assign(s.fragments.size(), 0);
  for (uint32_t p = 0; p < s.fragments.size(); ++p) s.update_excess(p);
  s.logs.assign(shape.learners, {});
  s.applied.assign(size_t{shape.learners} * shape.fragments_p, 0);
  s.rho.resize(d);
  s.omega.resize(d);
  s.q.resize(d);
}

void NqmLoss::on_inner_steps(uint32_t m, uint64_t steps, double batch_tokens) {
  Impl& s = *impl_;
  GOODSIM_CHECK(m < s.shape.learners && batch_tokens > 0);
  s.logs[m].add(steps, batch_tokens);  // applied per fragment when needed (DP: by loss())
}

void NqmLoss::Impl::set_weights(const std::vector<Contribution>& cs) {
  double total = 0;
  for (const Contribution& c : cs) total += c.weight;
  terms.clear();
  for (const Contribution& c : cs) {
    const double w = total > 0 ? c.weight / total : 1.0 / static_cast<double>(cs.size());
    terms.push_back({c.learner, w});
  }
}

// alpha_c = s w_c / n_c, n_c = RMS ||Delta_c||, s = sum w_c n_c / RMS ||sum w_c Delta_c / n_c||:
// the weighted mean direction scaled to the weighted mean norm. Falls back to
// the plain mean when a norm vanishes.
void NqmLoss::Impl::radial_directional(FragmentMoments& f, bool from_base) {
  std::vector<double> norm(terms.size());
  std::vector<LearnerTerm> dir = terms;
  double mean_norm = 0;
  for (size_t k = 0; k < terms.size(); ++k) {
    norm[k] = std::sqrt(f.expected_square_delta({{terms[k].learner, 1.0}}, from_base));
    if (!(norm[k] > 1e-300)) return;
    mean_norm += terms[k].coeff * norm[k];
    dir[k].coeff /= norm[k];
  }
  const double dir_norm = std::sqrt(f.expected_square_delta(dir, from_base));
  if (!(dir_norm > 1e-300)) return;
  for (size_t k = 0; k < terms.size(); ++k) terms[k].coeff = dir[k].coeff * mean_norm / dir_norm;
}

void NqmLoss::on_merge(uint32_t p, const std::vector<Contribution>& contributors) {
  Impl& s = *impl_;
  GOODSIM_CHECK(p < s.shape.fragments_p);
  if (s.dp || contributors.empty()) return;
  for (const Contribution& c : contributors) {
    GOODSIM_CHECK(c.learner < s.shape.learners && c.weight >= 0);
    s.flush(c.learner, p);
  }
  for (size_t a = 0; a < contributors.size(); ++a) {
    for (size_t b = a + 1; b < contributors.size(); ++b) {
      GOODSIM_CHECK(contributors[a].learner != contributors[b].learner);
    }
  }
  FragmentMoments& f = s.fragments[p];
  if (f.size() == 0) return;
  s.set_weights(contributors);
  if (config_.radial_directional) s.radial_directional(f, config_.from_base);
  f.merge(s.terms, config_.from_base, config_.outer_lr, config_.outer_momentum);
  s.update_excess(p);
}

void NqmLoss::on_receive(uint32_t m, uint32_t p) {
  Impl& s = *impl_;
  GOODSIM_CHECK(m < s.shape.learners && p < s.shape.fragments_p);
  if (s.dp) return;
  s.fragments[p].receive(m);
  s.applied[size_t{m} * s.shape.fragments_p + p] = s.logs[m].total();  // overwritten
}

void NqmLoss::on_rejoin(uint32_t m) {
  Impl& s = *impl_;
  GOODSIM_CHECK(m < s.shape.learners);
  if (s.dp) return;
  for (uint32_t p = 0; p < s.shape.fragments_p; ++p) on_receive(m, p);
}

double NqmLoss::loss() const {
  if (impl_->dp) impl_->flush(0, 0);  // pending steps; the model's value is unchanged by that
  const Impl& s = *impl_;
  double quad = 0;
  for (double e : s.excess) quad += e;
  return std::min(config_.fits.max_loss, s.cal.method_factor * (s.cal.limit_loss + quad));
}

const NqmCalibration& NqmLoss::calibration() const { return impl_->cal; }
double NqmLoss::eigenvalue(uint32_t i) const { return impl_->h(i); }

double NqmLoss::global_mean(uint32_t i) const {
  if (impl_->dp) impl_->flush(0, 0);
  const uint32_t p = impl_->fragment_of(i);
  return impl_->fragments[p].global_mean(i - impl_->fragments[p].begin());
}

double NqmLoss::global_variance(uint32_t i) const {
  if (impl_->dp) impl_->flush(0, 0);
  const uint32_t p = impl_->fragment_of(i);
  return impl_->fragments[p].global_variance(i - impl_->fragments[p].begin());
}

// Pending steps are applied first (the model's state is unchanged by that).
double NqmLoss::learner_mean(uint32_t m, uint32_t i) const {
  if (impl_->dp) return global_mean(i);
  const uint32_t p = impl_->fragment_of(i);
  impl_->flush(m, p);
  return impl_->fragments[p].learner_mean(m, i - impl_->fragments[p].begin());
}

double NqmLoss::learner_variance(uint32_t m, uint32_t i) const {
  if (impl_->dp) return global_variance(i);
  const uint32_t p = impl_->fragment_of(i);
  impl_->flush(m, p);
  return impl_->fragments[p].learner_variance(m, i - impl_->fragments[p].begin());
}

}  // namespace goodsim::models::loss
