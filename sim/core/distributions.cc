#include "sim/core/distributions.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <utility>

namespace goodsim::core {

namespace {

// Shortest decimal that round-trips, so describe() is exact and stable.
std::string format_number(double x) {
  char buf[32];
  const auto result = std::to_chars(buf, buf + sizeof(buf), x);
  return std::string(buf, result.ptr);
}

// The checks of one distribution's parameters. A failed check throws
// std::invalid_argument("<dist>: <rule> (got <value>)"); each returns *this, so
// a distribution states its checks in one expression, naming itself once.
class ParamCheck {
 public:
  explicit ParamCheck(std::string_view dist) : dist_(dist) {}

  [[noreturn]] void fail(std::string_view what, double got) const {
    throw std::invalid_argument(std::string(dist_) + ": " + std::string(what) + " (got " +
                                format_number(got) + ")");
  }
  const ParamCheck& positive(std::string_view name, double v) const {
    if (!std::isfinite(v) || v <= 0.0) fail(std::string(name) + " must be a finite number > 0", v);
    return *this;
  }
  const ParamCheck& non_negative(std::string_view name, double v) const {
    if (!std::isfinite(v) || v < 0.0) fail(std::string(name) + " must be a finite number >= 0", v);
    return *this;
  }
  const ParamCheck& finite(std::string_view name, double v) const {
    if (!std::isfinite(v)) fail(std::string(name) + " must be finite", v);
    return *this;
  }
  // `name` = v must not be below the parameter `bound_name` = bound.
  const ParamCheck& at_least(std::string_view name, double v, std::string_view bound_name,
                             double bound) const {
    if (v < bound) {
      fail(std::string(name) + " must be >= " + std::string(bound_name) + " (" +
               std::string(bound_name) + "=" + format_number(bound) + ")",
           v);
    }
    return *this;
  }

 private:
  std::string_view dist_;
};

// Adds the points of one tanh-sinh level to the running sum: every k*h for
// k in [-n, n], or only the odd k when refining a previous level.
template <typename F>
double tanh_sinh_level(F&& f, double h, int n, bool odd_only) {
  constexpr double kPi = std::numbers::pi;
  double sum = 0.0;
  for (int k = -n; k <= n; ++k) {
    if (odd_only && k % 2 == 0) continue;
    const double t = k * h;
    const double s = 0.5 * kPi * std::sinh(t);
    // u = 1 / (1 + e^{-2s}); both u and 1 - u are formed from e = e^{-2|s|}
    // so neither endpoint loses precision to cancellation.
    const double e = std::exp(-2.0 * std::abs(s));
    const double near = e / (1.0 + e), far = 1.0 / (1.0 + e);
    const double u = s >= 0 ? far : near, one_minus_u = s >= 0 ? near : far;
    const double weight = kPi * std::cosh(t) * e / ((1.0 + e) * (1.0 + e));
    if (weight > 0.0) sum += weight * f(u, one_minus_u);
  }
  return sum;
}

// Integral of f over (0, 1) by tanh-sinh quadrature, halving the step until
// two levels agree to ~1e-13. f receives (u, 1 - u).
template <typename F>
double integrate_unit_interval(F&& f) {
  constexpr double kTMax = 4.5;  // beyond this the weights are below 1e-60
  double h = 0.5;
  int n = static_cast<int>(std::ceil(kTMax / h));
  double sum = tanh_sinh_level(f, h, n, false);
  double estimate = h * sum;
  for (int level = 0; level < 10; ++level) {
    h /= 2;
    n *= 2;
    sum += tanh_sinh_level(f, h, n, true);
    const double next = h * sum;
    const bool converged = std::abs(next - estimate) <= 1e-13 * std::abs(next);
    estimate = next;
    if (converged) break;
  }
  return estimate;
}

}  // namespace

// ---- Samplers -------------------------------------------------------------

double uniform(Rng& rng, double a, double b) { return a + (b - a) * rng.uniform01(); }

double standard_exponential(Rng& rng) {
  // log1p keeps full relative precision for small results and gives +0, not -0.
  return -std::log1p(-rng.uniform01());
}

double exponential(Rng& rng, double mean) { return mean * standard_exponential(rng); }

double weibull(Rng& rng, double shape, double scale) {
  return scale * std::pow(standard_exponential(rng), 1.0 / shape);
}

double standard_normal(Rng& rng) {
  const double radius = std::sqrt(-2.0 * std::log(rng.uniform_pos01()));
  return radius * std::cos(2.0 * std::numbers::pi * rng.uniform01());
}

double normal(Rng& rng, double mean, double sd) { return mean + sd * standard_normal(rng); }

double lognormal(Rng& rng, double mu, double sigma) {
  return std::exp(mu + sigma * standard_normal(rng));
}

double exp_weibull(Rng& rng, double shape, double scale, double alpha) {
  // 1 - U^(1/alpha) is formed as -expm1(log(U)/alpha): computing U^(1/alpha)
  // first would round to 1 for large alpha and U near 1, giving +inf.
  const double one_minus_v = -std::expm1(std::log(rng.uniform01()) / alpha);
  return scale * std::pow(-std::log(one_minus_v), 1.0 / shape);
}

// ---- Parameters and analytic means ----------------------------------------

LognormalParams lognormal_params_from_mean_cv(double mean, double cv) {
  ParamCheck("lognormal").positive("mean", mean).non_negative("cv", cv);
  const double var_log = std::log1p(cv * cv);
  return {std::log(mean) - 0.5 * var_log, std::sqrt(var_log)};
}

LognormalParams lognormal_params_from_mean_stddev(double mean, double stddev) {
  ParamCheck("lognormal").positive("mean", mean).non_negative("stddev", stddev);
  return lognormal_params_from_mean_cv(mean, stddev / mean);
}

double weibull_mean(double shape, double scale) { return scale * std::tgamma(1.0 + 1.0 / shape); }

double lognormal_mean(double mu, double sigma) { return std::exp(mu + 0.5 * sigma * sigma); }

double normal_truncated_at_zero_mean(double mean, double sd) {
  if (sd == 0.0) return mean;
  const double z = mean / sd;
  const double pdf = std::exp(-0.5 * z * z) / std::sqrt(2.0 * std::numbers::pi);
  const double cdf = 0.5 * std::erfc(-z / std::numbers::sqrt2);
  return mean + sd * pdf / cdf;
}

double exp_weibull_mean(double shape, double scale, double alpha) {
  const auto quantile = [&](double u, double one_minus_u) {
    const double log_u = u < 0.5 ? std::log(u) : std::log1p(-one_minus_u);
    const double one_minus_v = -std::expm1(log_u / alpha);
    return std::pow(-std::log(one_minus_v), 1.0 / shape);
  };
  return scale * integrate_unit_interval(quantile);
}

// ---- Categorical ----------------------------------------------------------

Categorical::Categorical(const std::vector<double>& weights) {
  if (weights.empty()) throw std::invalid_argument("categorical: weights must not be empty");
  double total = 0.0;
  for (size_t i = 0; i < weights.size(); ++i) {
    ParamCheck("categorical").non_negative("weight " + std::to_string(i), weights[i]);
    total += weights[i];
  }
  if (total <= 0.0) throw std::invalid_argument("categorical: at least one weight must be > 0");
  if (!std::isfinite(total)) throw std::invalid_argument("categorical: weights sum to infinity");
  probability_.reserve(weights.size());
  for (const double w : weights) probability_.push_back(w / total);
  build_alias_table();
}

void Categorical::build_alias_table() {
  // Vose's method. Indices are pushed in ascending order and popped from the
  // back, so the table (and thus every draw) is fully determined by the weights.
  const size_t n = probability_.size();
  threshold_.assign(n, 1.0);
  alias_.resize(n);
  std::vector<double> scaled(n);
  std::vector<size_t> small, large;
  for (size_t i = 0; i < n; ++i) {
    alias_[i] = i;
    scaled[i] = probability_[i] * static_cast<double>(n);
    (scaled[i] < 1.0 ? small : large).push_back(i);
  }
  while (!small.empty() && !large.empty()) {
    const size_t s = small.back(), l = large.back();
    small.pop_back();
    large.pop_back();
    threshold_[s] = scaled[s];
    alias_[s] = l;
    scaled[l] = (scaled[l] + scaled[s]) - 1.0;
    (scaled[l] < 1.0 ? small : large).push_back(l);
  }
  // Whatever is left is 1 up to rounding; threshold_ already holds 1.0 there.
}

// ---- Empirical ------------------------------------------------------------

Empirical::Empirical(std::vector<double> samples) : sorted_(std::move(samples)) {
  if (sorted_.empty()) throw std::invalid_argument("empirical: samples must not be empty");
  const ParamCheck check("empirical");
  double sum = 0.0;
  for (size_t i = 0; i < sorted_.size(); ++i) {
    check.finite("sample " + std::to_string(i), sorted_[i]);
    sum += sorted_[i];
  }
  check.finite("sum of samples", sum);
  std::sort(sorted_.begin(), sorted_.end());
  mean_ = sum / static_cast<double>(sorted_.size());
}

double Empirical::quantile(double u) const {
  // Position of u on the order statistics: x_i sits at u = (i + 0.5) / n.
  const double pos = u * static_cast<double>(sorted_.size()) - 0.5;
  if (pos <= 0.0) return sorted_.front();
  const double last = static_cast<double>(sorted_.size() - 1);
  if (pos >= last) return sorted_.back();
  const size_t i = static_cast<size_t>(pos);
  const double frac = pos - static_cast<double>(i);
  return sorted_[i] + frac * (sorted_[i + 1] - sorted_[i]);
}

// ---- Distribution ---------------------------------------------------------

Distribution::Distribution(Kind kind, double p0, double p1, double p2, double mean)
    : kind_(kind), p0_(p0), p1_(p1), p2_(p2), mean_(mean) {}

Distribution Distribution::fixed(double value) {
  ParamCheck("fixed").non_negative("value", value);
  return Distribution(Kind::kFixed, value, 0.0, 0.0, value);
}

Distribution Distribution::uniform(double lo, double hi) {
  ParamCheck("uniform").non_negative("lo", lo).finite("hi", hi).at_least("hi", hi, "lo", lo);
  return Distribution(Kind::kUniform, lo, hi, 0.0, 0.5 * (lo + hi));
}

Distribution Distribution::exponential(double mean) {
  ParamCheck("exponential").positive("mean", mean);
  return Distribution(Kind::kExponential, mean, 0.0, 0.0, mean);
}

Distribution Distribution::weibull(double shape, double scale) {
  const ParamCheck check("weibull");
  check.positive("shape", shape).positive("scale", scale);
  const double mean = weibull_mean(shape, scale);
  check.finite("mean scale * Gamma(1 + 1/shape)", mean);
  return Distribution(Kind::kWeibull, shape, scale, 0.0, mean);
}

Distribution Distribution::lognormal(double mu, double sigma) {
  const ParamCheck check("lognormal");
  check.finite("mu", mu).non_negative("sigma", sigma);
  const double mean = lognormal_mean(mu, sigma);
  if (!std::isfinite(mean) || mean <= 0.0) {
    check.fail("mean exp(mu + sigma^2/2) must be finite and > 0", mean);
  }
  return Distribution(Kind::kLognormal, mu, sigma, 0.0, mean);
}

Distribution Distribution::lognormal_mean_sigma(double mean, double sigma) {
  ParamCheck("lognormal").positive("mean", mean).non_negative("sigma", sigma);
  const double mu = std::log(mean) - 0.5 * sigma * sigma;
  return Distribution(Kind::kLognormal, mu, sigma, 0.0, mean);
}

Distribution Distribution::lognormal_mean_cv(double mean, double cv) {
  const LognormalParams p = lognormal_params_from_mean_cv(mean, cv);
  return Distribution(Kind::kLognormal, p.mu, p.sigma, 0.0, mean);
}

Distribution Distribution::lognormal_mean_stddev(double mean, double stddev) {
  const LognormalParams p = lognormal_params_from_mean_stddev(mean, stddev);
  return Distribution(Kind::kLognormal, p.mu, p.sigma, 0.0, mean);
}

Distribution Distribution::normal(double mean, double sd) {
  ParamCheck("normal").positive("mean", mean).non_negative("sd", sd);
  return Distribution(Kind::kNormal, mean, sd, 0.0, normal_truncated_at_zero_mean(mean, sd));
}

Distribution Distribution::exp_weibull(double shape, double scale, double alpha) {
  const ParamCheck check("exp_weibull");
  check.positive("shape", shape).positive("scale", scale).positive("alpha", alpha);
  const double mean = exp_weibull_mean(shape, scale, alpha);
  check.finite("mean", mean);
  return Distribution(Kind::kExpWeibull, shape, scale, alpha, mean);
}

Distribution Distribution::empirical(std::vector<double> samples) {
  auto table = std::make_shared<const Empirical>(std::move(samples));
  for (const double x : table->sorted_samples()) {
    if (x < 0.0) ParamCheck("empirical").fail("samples must be >= 0", x);
  }
  Distribution d(Kind::kEmpirical, 0.0, 0.0, 0.0, table->mean());
  d.empirical_ = std::move(table);
  return d;
}

std::string_view Distribution::kind_name(Kind kind) {
  switch (kind) {
    case Kind::kFixed: return "fixed";
    case Kind::kUniform: return "uniform";
    case Kind::kExponential: return "exponential";
    case Kind::kWeibull: return "weibull";
    case Kind::kLognormal: return "lognormal";
    case Kind::kNormal: return "normal";
    case Kind::kExpWeibull: return "exp_weibull";
    case Kind::kEmpirical: return "empirical";
  }
  return "unknown";
}

double Distribution::sample(Rng& rng) const {
  switch (kind_) {
    case Kind::kFixed: return p0_;
    case Kind::kUniform: return core::uniform(rng, p0_, p1_);
    case Kind::kExponential: return core::exponential(rng, p0_);
    case Kind::kWeibull: return core::weibull(rng, p0_, p1_);
    case Kind::kLognormal: return core::lognormal(rng, p0_, p1_);
    case Kind::kNormal: {
      double x = core::normal(rng, p0_, p1_);
      while (x < 0.0) x = core::normal(rng, p0_, p1_);
      return x;
    }
    case Kind::kExpWeibull: return core::exp_weibull(rng, p0_, p1_, p2_);
    case Kind::kEmpirical: return empirical_->sample(rng);
  }
  return 0.0;
}

std::string Distribution::describe() const {
  const auto f = format_number;
  switch (kind_) {
    case Kind::kFixed: return "fixed(" + f(p0_) + ")";
    case Kind::kUniform: return "uniform(lo=" + f(p0_) + ", hi=" + f(p1_) + ")";
    case Kind::kExponential: return "exponential(mean=" + f(p0_) + ")";
    case Kind::kWeibull: return "weibull(shape=" + f(p0_) + ", scale=" + f(p1_) + ")";
    case Kind::kLognormal: return "lognormal(mean=" + f(mean_) + ", sigma=" + f(p1_) + ")";
    case Kind::kNormal: return "normal(mean=" + f(p0_) + ", sd=" + f(p1_) + ", truncated at 0)";
    case Kind::kExpWeibull:
      return "exp_weibull(shape=" + f(p0_) + ", scale=" + f(p1_) + ", alpha=" + f(p2_) + ")";
    case Kind::kEmpirical:
      return "empirical(n=" + std::to_string(empirical_->size()) + ", mean=" + f(mean_) + ")";
  }
  return "unknown";
}

}  // namespace goodsim::core
