// Random distributions for goodsim, written here rather than taken from
// <random>: std:: distributions are implementation-defined and would make a
// run's results depend on the standard library vendor.
//
// Every sampler is a deterministic function of the Rng's bits (plus libm's
// log/exp/pow/cos/tgamma, which are correctly rounded or nearly so on every
// platform we build on). Units are the caller's; durations are usually seconds.
//
// Two layers:
//   - free functions (uniform, exponential, ...): hot-path samplers that do not
//     validate their arguments; each states its REQUIRES.
//   - Categorical, Empirical, Distribution: built once from user input; their
//     constructors validate and throw std::invalid_argument with a message
//     that names the distribution and the bad parameter.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/rng.h"

namespace goodsim::core {

// ---- Samplers -------------------------------------------------------------

// Uniform on [a, b). REQUIRES: a <= b, both finite.
double uniform(Rng& rng, double a, double b);

// Exponential with mean 1, as -log(1 - U), U uniform on [0, 1). Always >= 0.
double standard_exponential(Rng& rng);

// Exponential with the given mean (not rate). REQUIRES: mean >= 0.
double exponential(Rng& rng, double mean);

// Weibull, CDF 1 - exp(-(x/scale)^shape). REQUIRES: shape > 0, scale >= 0.
double weibull(Rng& rng, double shape, double scale);

// Standard normal by Box-Muller: sqrt(-2 log U1) * cos(2 pi U2). Draws two
// uniforms per call and keeps no cached second variate, so the stream
// position depends only on the number of calls.
double standard_normal(Rng& rng);

// Normal (not truncated). REQUIRES: sd >= 0.
double normal(Rng& rng, double mean, double sd);

// Lognormal: exp(mu + sigma * Z), Z standard normal. REQUIRES: sigma >= 0.
double lognormal(Rng& rng, double mu, double sigma);

// Exponentiated Weibull (Mudholkar & Srivastava), CDF
// (1 - exp(-(x/scale)^shape))^alpha, sampled by inverse CDF:
//   x = scale * (-log(1 - U^(1/alpha)))^(1/shape),  U uniform on [0, 1).
// alpha = 1 is the Weibull; alpha < 1 adds early (infant-mortality) mass.
// REQUIRES: shape > 0, scale >= 0, alpha > 0.
double exp_weibull(Rng& rng, double shape, double scale, double alpha);

// ---- Parameters and analytic means ----------------------------------------

// Log-space parameters of a lognormal.
struct LognormalParams {
  double mu = 0.0;
  double sigma = 0.0;
};

// (mu, sigma) of the lognormal with the given mean and coefficient of
// variation cv = stddev / mean: sigma^2 = log(1 + cv^2), mu = log(mean) - sigma^2/2.
// Throws std::invalid_argument unless mean > 0 and cv >= 0 (both finite).
LognormalParams lognormal_params_from_mean_cv(double mean, double cv);

// Same, from the mean and the standard deviation (cv = stddev / mean).
// Throws std::invalid_argument unless mean > 0 and stddev >= 0 (both finite).
LognormalParams lognormal_params_from_mean_stddev(double mean, double stddev);

// scale * Gamma(1 + 1/shape). REQUIRES: shape > 0.
double weibull_mean(double shape, double scale);

// exp(mu + sigma^2 / 2).
double lognormal_mean(double mu, double sigma);

// Mean of the normal(mean, sd) conditioned on X >= 0 (what Distribution::normal
// samples): mean + sd * phi(mean/sd) / Phi(mean/sd). REQUIRES: sd >= 0, and
// mean > 0 or sd > 0.
double normal_truncated_at_zero_mean(double mean, double sd);

// Mean of the exponentiated Weibull. No closed form for non-integer alpha, so
// this integrates the quantile function Q(u) over u in (0, 1) with tanh-sinh
// (double-exponential) quadrature, which copes with Q's endpoint singularities
// (u^(1/(alpha*shape)) at 0, a power of log at 1). Relative error is about
// 1e-12 for shape >= 0.1; cost is a few thousand log/pow calls, so compute it
// once, not per event. REQUIRES: shape > 0, scale >= 0, alpha > 0.
double exp_weibull_mean(double shape, double scale, double alpha);

// ---- Categorical ----------------------------------------------------------

// Categorical: picks index i in [0, size()) with probability weight[i] / sum.
//
// Sampling is O(1) with Vose's alias method (one below() and one uniform01()
// per draw). The table is built in a fixed order, so the same weights give the
// same draws everywhere. Zero-weight categories are never drawn.
// Invariants: size() >= 1, probabilities sum to 1.
class Categorical {
 public:
  // Throws std::invalid_argument if `weights` is empty, or any weight is
  // negative, NaN or infinite, or all weights are zero.
  explicit Categorical(const std::vector<double>& weights);

  size_t sample(Rng& rng) const {
    const size_t i = static_cast<size_t>(rng.below(threshold_.size()));
    return rng.uniform01() < threshold_[i] ? i : alias_[i];
  }

  size_t size() const { return probability_.size(); }

  // Normalized probability of index i. REQUIRES: i < size().
  double probability(size_t i) const { return probability_[i]; }

 private:
  void build_alias_table();

  std::vector<double> probability_;
  std::vector<double> threshold_;  // keep column i with this probability
  std::vector<size_t> alias_;      // otherwise take alias_[i]
};

// ---- Empirical ------------------------------------------------------------

// Empirical: a continuous distribution fitted to observed samples.
//
// With sorted samples x_0 <= ... <= x_{n-1}, the CDF is piecewise linear
// through the points (x_i, (i + 0.5) / n) (Hazen plotting positions) and
// constant outside [x_0, x_{n-1}]; equivalently the quantile function is
//   Q(u) = x_0 for u <= 0.5/n, x_{n-1} for u >= 1 - 0.5/n, linear in between.
// This choice never extrapolates beyond the data and makes mean() equal the
// arithmetic sample mean exactly. n = 1 is a point mass.
// Invariants: size() >= 1, samples finite and sorted.
class Empirical {
 public:
  // Throws std::invalid_argument if `samples` is empty or has a non-finite value.
  explicit Empirical(std::vector<double> samples);

  double sample(Rng& rng) const { return quantile(rng.uniform01()); }

  // Q(u) above. REQUIRES: 0 <= u <= 1.
  double quantile(double u) const;

  // Arithmetic mean of the samples (= the mean of this distribution).
  double mean() const { return mean_; }
  size_t size() const { return sorted_.size(); }
  const std::vector<double>& sorted_samples() const { return sorted_; }

 private:
  std::vector<double> sorted_;
  double mean_ = 0.0;
};

// ---- Distribution ---------------------------------------------------------

// Distribution: a value type describing a non-negative real quantity (a
// duration in seconds, a slowdown factor, ...), e.g. a repair time.
//
// Built only through the static constructors, which validate their arguments
// (finite, positive where the distribution needs it, non-negative support)
// and throw std::invalid_argument naming the distribution and the parameter.
// Every sample is >= 0. Default-constructed it is fixed(0).
// Copies are cheap: empirical samples are shared, immutable.
// Parsing from scenario JSON lives in sim/scenario, not here.
class Distribution {
 public:
  enum class Kind { kFixed, kUniform, kExponential, kWeibull, kLognormal, kNormal, kExpWeibull, kEmpirical };

  Distribution() = default;

  // Always `value`. REQUIRES (checked): value >= 0.
  static Distribution fixed(double value);
  // Uniform on [lo, hi). Checked: 0 <= lo <= hi.
  static Distribution uniform(double lo, double hi);
  // Checked: mean > 0.
  static Distribution exponential(double mean);
  // Checked: shape > 0, scale > 0.
  static Distribution weibull(double shape, double scale);
  // Log-space parameters. Checked: sigma >= 0.
  static Distribution lognormal(double mu, double sigma);
  // Given the (linear-space) mean and the log-space sigma. Checked: mean > 0, sigma >= 0.
  static Distribution lognormal_mean_sigma(double mean, double sigma);
  // Given the mean and cv = stddev / mean. Checked: mean > 0, cv >= 0.
  static Distribution lognormal_mean_cv(double mean, double cv);
  // Given the mean and stddev. Checked: mean > 0, stddev >= 0.
  static Distribution lognormal_mean_stddev(double mean, double stddev);
  // Normal(mean, sd) truncated at 0 by RESAMPLING (draws below 0 are redrawn,
  // so the result has the conditional law X | X >= 0, with no atom at 0).
  // mean() is the truncated mean, which is above `mean`. Checked: mean > 0
  // (so at most 2 draws expected), sd >= 0.
  static Distribution normal(double mean, double sd);
  // Exponentiated Weibull, see exp_weibull(). Checked: shape, scale, alpha > 0.
  static Distribution exp_weibull(double shape, double scale, double alpha);
  // See Empirical. Checked: non-empty, finite, all samples >= 0.
  static Distribution empirical(std::vector<double> samples);

  Kind kind() const { return kind_; }
  // "fixed", "uniform", ..., "exp_weibull", "empirical".
  static std::string_view kind_name(Kind kind);

  double sample(Rng& rng) const;
  // Exact where a closed form exists; exp_weibull's is numerical (see
  // exp_weibull_mean), computed once at construction.
  double mean() const { return mean_; }
  // Human-readable, with shortest round-trip numbers, e.g.
  // "lognormal(mean=3600, sigma=1)", "weibull(shape=0.7, scale=86400)".
  std::string describe() const;

 private:
  Distribution(Kind kind, double p0, double p1, double p2, double mean);

  Kind kind_ = Kind::kFixed;
  // Meaning by kind: fixed (value); uniform (lo, hi); exponential (mean);
  // weibull (shape, scale); lognormal (mu, sigma, mean); normal (mean, sd);
  // exp_weibull (shape, scale, alpha); empirical (unused).
  double p0_ = 0.0;
  double p1_ = 0.0;
  double p2_ = 0.0;
  double mean_ = 0.0;
  std::shared_ptr<const Empirical> empirical_;
};

}  // namespace goodsim::core
