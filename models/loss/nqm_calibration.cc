#include "models/loss/nqm_calibration.h"

#include <algorithm>
#include <cmath>

namespace goodsim::models::loss::detail {

// Per dimension the merged copy is r^H g plus noise of variance
// eta c / (b (2 - eta h)) (1 - r^2H) (M learners at b / M average like one
// learner at b); with Delta = (1 - r^H) g - noise, (g, u) -> A (g, u) + v noise.
double sync_reference_excess(const Eigen::ArrayXd& h, const Eigen::ArrayXd& theta0,
                             const NqmCalibration& cal, const NqmConfig& c, uint32_t inner_h,
                             double batch, double steps) {
  const double lr = c.outer_lr, mu = c.outer_momentum, eta = cal.inner_lr;
  const auto rounds = static_cast<uint64_t>(steps / inner_h);
  double excess = 0;
  for (Eigen::Index i = 0; i < h.size(); ++i) {
    const double x = inner_h * std::log1p(-eta * h(i));
    const double rho = std::exp(x), om = -std::expm1(x);
    const double q = eta * cal.noise / (batch * (2 - eta * h(i))) * om * (1 + rho);
    Eigen::Matrix2d pb;  // A^(2^j)
    pb << 1 - lr * (1 + mu) * om, -lr * mu * mu, om, mu;
    const Eigen::Vector2d v(lr * (1 + mu), -1);
    Eigen::Matrix2d sb = q * v * v.transpose();  // noise of 2^j rounds
    Eigen::Matrix2d p = Eigen::Matrix2d::Identity(), s = Eigen::Matrix2d::Zero();
    for (uint64_t k = rounds; k != 0; k >>= 1) {
      if (k & 1) {
        s = pb * s * pb.transpose() + sb;
        p = pb * p;
      }
      sb = pb * sb * pb.transpose() + sb;
      pb = pb * pb;
    }
    const double mean = p(0, 0) * theta0(i);
    excess += 0.5 * h(i) * (mean * mean + s(0, 0));
  }
  return excess;
}

namespace {

// DiLoCo's gradient noise per token: the c that makes `batch` the loss-minimising
// global batch of the synchronous schedule at the fits' budget, as DP's c does
// for b* (the batch fit's optimum grows with M; with DP's c and DiLoCo's small
// inner lr the quadratic's optimum would instead lie below b*). The excess is
// A(b) + c U(b) (the noise part is linear in c), so d/d ln b = 0 gives
// c = -A' / U', by central differences over b e^(+-0.1). Falls back to
// `fallback` where that is not a positive number.
double diloco_noise(const Eigen::ArrayXd& h, const Eigen::ArrayXd& theta0, NqmCalibration cal,
                    const NqmConfig& c, uint32_t inner_h, double batch, double fallback) {
  double a[2], u[2];
  for (int side = 0; side < 2; ++side) {
    const double b = batch * std::exp(side == 0 ? -0.1 : 0.1);
    const double steps = cal.budget_steps * cal.optimal_batch / b;
    cal.noise = 0;
    a[side] = sync_reference_excess(h, theta0, cal, c, inner_h, b, steps);
    cal.noise = 1;
    u[side] = sync_reference_excess(h, theta0, cal, c, inner_h, b, steps) - a[side];
  }
  const double noise = -(a[1] - a[0]) / (u[1] - u[0]);
  return std::isfinite(noise) && noise > 0 ? noise : fallback;
}

}  // namespace

NqmCalibration calibrate(const NqmConfig& c, const TrainingShape& shape, Eigen::ArrayXd& h,
                         Eigen::ArrayXd& theta0) {
  const ScalingFits& f = c.fits;
  const double n = shape.params;
  NqmCalibration cal;
  cal.optimal_batch = f.optimal_batch(n, 1);
  cal.budget_steps = f.budget_tokens(n) / cal.optimal_batch;
  cal.lr = c.lr;
  const double d = c.dims;
  cal.spectrum_exponent = c.spectrum_exponent.value_or(
      std::max(0.1, std::log(2 * c.lr * c.window * cal.budget_steps) / std::log(d)));
  const Eigen::ArrayXd index = Eigen::ArrayXd::LinSpaced(c.dims, 1, d);
  h = index.pow(-cal.spectrum_exponent);
  const double beta = f.data_term.exponent;
  const Eigen::ArrayXd shape_init = index.pow(cal.spectrum_exponent * (1 - beta) - 1);
  const Eigen::ArrayXd x = 2 * cal.budget_steps * (-c.lr * h).log1p();
  const double det = 0.5 * (h * shape_init * x.exp()).sum();
  const double noise1 =
      0.5 * (h * c.lr / (2 - c.lr * h) * (-x.expm1())).sum() / cal.optimal_batch;
  const double c_unit = c.noise_scale * beta * det / noise1;
  cal.init_scale = f.data_part(n) / (det + c_unit * noise1);
  cal.noise = c_unit * cal.init_scale;
  cal.limit_loss = f.limit_part(n);
  theta0 = (cal.init_scale * shape_init).sqrt();
  const bool dp = shape.inner_steps_h == 0;
  cal.inner_lr = dp ? c.lr
                    : c.lr * c.inner_lr_scale.value_or((1 - c.outer_momentum) / c.outer_lr);
  if (!dp && c.calibrate_diloco) {
    // At the method's own optimal batch (the published batch fit depends on M),
    // where the per-M loss fits were measured.
    const double batch = f.optimal_batch(n, shape.learners);
    if (c.noise_scale > 0) {
      cal.noise = c.noise_scale * diloco_noise(h, theta0, cal, c, shape.inner_steps_h, batch,
                                               cal.noise / c.noise_scale);
    }
    const double sync =
        cal.limit_loss + sync_reference_excess(h, theta0, cal, c, shape.inner_steps_h, batch,
                                               f.budget_tokens(n) / batch);
    cal.method_factor = f.method_fit(n, shape.learners, false) *
                        f.interval_factor(shape.inner_steps_h) / sync;
  }
  return cal;
}

}  // namespace goodsim::models::loss::detail
