#include "app/calibrate/fit.h"

#include <fmt/format.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <map>
#include <ostream>
#include <unsupported/Eigen/NonLinearOptimization>

namespace goodsim::app::calibrate {
namespace {

std::vector<double> clamped(const Eigen::VectorXd& x) {
  std::vector<double> z(static_cast<size_t>(x.size()));
  for (Eigen::Index j = 0; j < x.size(); ++j) z[j] = std::clamp(x(j), 0.0, 1.0);
  return z;
}

// The least-squares problem as Eigen's LevenbergMarquardt wants it; caches
// every evaluated point, since lmder asks for the Jacobian where it has just
// evaluated the residuals.
class Residuals {
 public:
  Residuals(Objective& objective, std::vector<double> sigma, double step)
      : obj_(objective), sigma_(std::move(sigma)), step_(step) {}

  int inputs() const { return static_cast<int>(obj_.knobs().size()); }
  int values() const { return static_cast<int>(obj_.observations().size()); }

  int operator()(const Eigen::VectorXd& x, Eigen::VectorXd& f) {
    f = residuals(evaluate({clamped(x)}).front());
    return 0;
  }

  int df(const Eigen::VectorXd& x, Eigen::MatrixXd& jac) {
    jacobian(clamped(x), jac);
    return 0;
  }

  // Forward differences at z (inward near the upper bound).
  void jacobian(const std::vector<double>& z, Eigen::MatrixXd& jac) {
    std::vector<std::vector<double>> points{z};
    std::vector<double> h(z.size());
    for (size_t j = 0; j < z.size(); ++j) {
      h[j] = z[j] + step_ <= 1 ? step_ : -step_;
      points.push_back(z);
      points.back()[j] += h[j];
    }
    const std::vector<Simulated> s = evaluate(points);
    const Eigen::VectorXd f0 = residuals(s[0]);
    jac.resize(f0.size(), static_cast<Eigen::Index>(z.size()));
    for (size_t j = 0; j < z.size(); ++j) jac.col(j) = (residuals(s[j + 1]) - f0) / h[j];
  }

  Eigen::VectorXd residuals(const Simulated& s) const {
    Eigen::VectorXd f(values());
    for (size_t i = 0; i < sigma_.size(); ++i) {
      f(i) = (s.mean[i] - obj_.observations()[i].value) / sigma_[i];
    }
    return f;
  }

  Simulated at(const std::vector<double>& z) { return evaluate({z}).front(); }
  void remember(const std::vector<double>& z, const Simulated& s) { cache_.emplace(z, s); }

 private:
  // Evaluates the points not yet cached, all in one batch.
  std::vector<Simulated> evaluate(const std::vector<std::vector<double>>& points) {
    std::vector<std::vector<double>> missing;
    for (const auto& p : points) {
      if (!cache_.count(p) && std::find(missing.begin(), missing.end(), p) == missing.end()) {
        missing.push_back(p);
      }
    }
    if (!missing.empty()) {
      const std::vector<Simulated> got = obj_.evaluate(missing);
      for (size_t k = 0; k < missing.size(); ++k) cache_.emplace(missing[k], got[k]);
    }
    std::vector<Simulated> out;
    for (const auto& p : points) out.push_back(cache_.at(p));
    return out;
  }

  Objective& obj_;
  std::vector<double> sigma_;
  double step_;
  std::map<std::vector<double>, Simulated> cache_;
};

double halton(size_t index, unsigned base) {
  double f = 1, r = 0;
  for (size_t i = index; i > 0; i /= base) {
    f /= base;
    r += f * static_cast<double>(i % base);
  }
  return r;
}

std::vector<double> weights(const Objective& obj, const Simulated& s) {
  std::vector<double> sigma;
  for (size_t i = 0; i < obj.observations().size(); ++i) {
    const Observation& o = obj.observations()[i];
    const double floor = 1e-3 * std::max(std::abs(o.value), 1e-9);
    sigma.push_back(std::max(std::hypot(o.uncertainty, s.se[i]), floor));
  }
  return sigma;
}

std::string describe(const Objective& obj, const std::vector<double>& z) {
  std::string out;
  for (size_t k = 0; k < z.size(); ++k) {
    const Knob& knob = obj.knobs()[k];
    out += fmt::format("{}{}={}", k ? ", " : "", knob.label(), knob.format(knob.value(z[k])));
  }
  return out;
}

struct StartResult {
  std::vector<double> z;
  double chi2;
  size_t iterations;
};

StartResult run_start(Residuals& r, Objective& obj, size_t start, const FitOptions& o,
                      std::ostream& progress) {
  const size_t n = obj.knobs().size();
  const std::vector<double> z0 = start_point(start, n);
  Eigen::VectorXd x = Eigen::Map<const Eigen::VectorXd>(z0.data(), static_cast<Eigen::Index>(n));
  Eigen::LevenbergMarquardt<Residuals> lm(r);
  lm.useExternalScaling = true;
  lm.diag = Eigen::VectorXd::Ones(static_cast<Eigen::Index>(n));
  lm.parameters.factor = 0.5;
  lm.parameters.xtol = 1e-3;
  lm.parameters.ftol = 1e-4;
  lm.parameters.maxfev = static_cast<Eigen::Index>(4 * o.max_iterations);
  auto status = lm.minimizeInit(x);
  size_t it = 0;
  while (status != Eigen::LevenbergMarquardtSpace::ImproperInputParameters &&
         it < o.max_iterations) {
    status = lm.minimizeOneStep(x);
    ++it;
    progress << fmt::format(
                    "calibrate: start {} iteration {}: chi2 {:.4g} at {} ({} simulations)\n",
                    start + 1, it, lm.fnorm * lm.fnorm, describe(obj, clamped(x)),
                    obj.simulations())
             << std::flush;
    if (status != Eigen::LevenbergMarquardtSpace::Running) break;
  }
  const std::vector<double> z = clamped(x);
  return {z, r.residuals(r.at(z)).squaredNorm(), it};
}

std::vector<KnobEstimate> confidence(Residuals& r, const Objective& obj,
                                     const std::vector<double>& z, double chi2, size_t& rank) {
  Eigen::MatrixXd jac;
  r.jacobian(z, jac);
  rank = static_cast<size_t>(Eigen::ColPivHouseholderQR<Eigen::MatrixXd>(jac).rank());
  const auto m = static_cast<double>(jac.rows()), n = static_cast<double>(jac.cols());
  const double s2 = m > n ? std::max(1.0, chi2 / (m - n)) : 1.0;
  const Eigen::MatrixXd hess = jac.transpose() * jac;
  const Eigen::FullPivLU<Eigen::MatrixXd> lu(hess);
  const bool invertible = lu.isInvertible();
  const Eigen::MatrixXd cov = invertible ? Eigen::MatrixXd(s2 * lu.inverse()) : Eigen::MatrixXd();
  std::vector<KnobEstimate> out;
  for (size_t k = 0; k < z.size(); ++k) {
    const Knob& knob = obj.knobs()[k];
    const auto j = static_cast<Eigen::Index>(k);
    KnobEstimate e{knob.value(z[k]), knob.lo(), knob.hi(), false};
    if (invertible && jac.col(j).norm() > 0 && cov(j, j) >= 0) {
      const double half = 1.96 * std::sqrt(cov(j, j));
      e = {e.value, knob.value(z[k] - half), knob.value(z[k] + half), true};
    }
    out.push_back(e);
  }
  return out;
}

}  // namespace

std::vector<double> start_point(size_t i, size_t n) {
  static constexpr unsigned kPrimes[] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37};
  std::vector<double> z(n, 0.5);
  if (i == 0) return z;
  // Halton point 1 is 0.5 in base 2: with one knob it is the centre again, so a single
  // knob's restarts begin at point 2.
  const size_t index = n == 1 ? i + 1 : i;
  for (size_t k = 0; k < n; ++k) z[k] = halton(index, kPrimes[k % std::size(kPrimes)]);
  return z;
}

FitResult fit(Objective& objective, const FitOptions& options, std::ostream& progress) {
  const size_t n = objective.knobs().size();
  const Simulated centre = objective.evaluate({start_point(0, n)}).front();
  FitResult result;
  result.sigma = weights(objective, centre);
  Residuals r(objective, result.sigma, options.step);
  r.remember(start_point(0, n), centre);
  StartResult best{{}, INFINITY, 0};
  for (size_t s = 0; s <= options.restarts; ++s) {
    const StartResult got = run_start(r, objective, s, options, progress);
    result.iterations += got.iterations;
    if (got.chi2 < best.chi2) best = got;
  }
  result.z = best.z;
  result.chi2 = best.chi2;
  result.at_best = r.at(best.z);
  result.knobs = confidence(r, objective, best.z, best.chi2, result.rank);
  return result;
}

}  // namespace goodsim::app::calibrate
