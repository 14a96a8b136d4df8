// Tests for sim/core/distributions.h: moments within several standard errors,
// Kolmogorov-Smirnov against analytic CDFs, alias-table frequencies, the
// empirical distribution, validation and describe().
#include "sim/core/distributions.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numbers>
#include <stdexcept>
#include <vector>

namespace goodsim::core {
namespace {

constexpr int kMomentDraws = 200000;
constexpr int kKsDraws = 100000;
// Asymptotic Kolmogorov distribution: P(sqrt(n) D > 1.95) ~= 0.001.
constexpr double kKsCritical = 1.95;
constexpr double kSe = 5.0;  // tolerance in standard errors

using Sampler = std::function<double(Rng&)>;
using Cdf = std::function<double(double)>;

std::vector<double> draw(const Sampler& f, int n, uint64_t seed) {
  Rng rng(seed);
  std::vector<double> x(n);
  for (double& v : x) v = f(rng);
  return x;
}

// Mean, variance and fourth central moment of a distribution or a sample.
struct Moments {
  double mean = 0.0;
  double var = 0.0;
  double mu4 = 0.0;
};

Moments from_raw(double m1, double m2, double m3, double m4) {
  const double var = m2 - m1 * m1;
  const double mu4 = m4 - 4 * m1 * m3 + 6 * m1 * m1 * m2 - 3 * m1 * m1 * m1 * m1;
  return {m1, var, mu4};
}

Moments of_sample(const std::vector<double>& x) {
  double sum = 0.0;
  for (const double v : x) sum += v;
  const double n = static_cast<double>(x.size()), mean = sum / n;
  double s2 = 0.0, s4 = 0.0;
  for (const double v : x) {
    const double d2 = (v - mean) * (v - mean);
    s2 += d2;
    s4 += d2 * d2;
  }
  return {mean, s2 / (n - 1), s4 / n};
}

// Sample mean within kSe standard errors of the theory; if the theory gives a
// fourth moment, the sample variance too (SE of s^2 is sqrt((mu4 - var^2)/n)).
void check_moments(const std::vector<double>& x, const Moments& theory, bool check_var = true) {
  const Moments s = of_sample(x);
  const double n = static_cast<double>(x.size());
  INFO("sample mean " << s.mean << " var " << s.var << "; theory mean " << theory.mean
                      << " var " << theory.var);
  CHECK(std::abs(s.mean - theory.mean) <= kSe * std::sqrt(theory.var / n));
  if (check_var) {
    CHECK(std::abs(s.var - theory.var) <= kSe * std::sqrt((theory.mu4 - theory.var * theory.var) / n));
  }
}

double ks_statistic(std::vector<double> x, const Cdf& cdf) {
  std::sort(x.begin(), x.end());
  const double n = static_cast<double>(x.size());
  double d = 0.0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double f = cdf(x[i]);
    d = std::max({d, f - static_cast<double>(i) / n, static_cast<double>(i + 1) / n - f});
  }
  return d;
}

void check_ks(const Sampler& f, const Cdf& cdf, uint64_t seed) {
  const double d = ks_statistic(draw(f, kKsDraws, seed), cdf);
  INFO("KS D * sqrt(n) = " << d * std::sqrt(static_cast<double>(kKsDraws)));
  CHECK(d * std::sqrt(static_cast<double>(kKsDraws)) < kKsCritical);
}

double phi(double z) { return 0.5 * std::erfc(-z / std::numbers::sqrt2); }

double chi_square_critical(int dof) {  // upper 1e-3 point, Wilson-Hilferty
  const double k = dof, z = 3.090;
  const double c = 1.0 - 2.0 / (9.0 * k) + z * std::sqrt(2.0 / (9.0 * k));
  return k * c * c * c;
}

// E[X^r] of the exponentiated Weibull for integer alpha, by expanding
// (1 - e^{-y})^(alpha - 1) binomially in E[X^r] = scale^r alpha
// Integral y^{r/k} (1 - e^{-y})^{alpha-1} e^{-y} dy.
double exp_weibull_raw_moment(double k, double scale, int alpha, int r) {
  double sum = 0.0, binom = 1.0;
  for (int j = 0; j < alpha; ++j) {
    sum += (j % 2 == 0 ? 1 : -1) * binom / std::pow(j + 1.0, 1.0 + r / k);
    binom = binom * (alpha - 1 - j) / (j + 1);
  }
  return std::pow(scale, r) * alpha * std::tgamma(1.0 + r / k) * sum;
}

Moments exp_weibull_moments(double k, double scale, int alpha) {
  return from_raw(exp_weibull_raw_moment(k, scale, alpha, 1), exp_weibull_raw_moment(k, scale, alpha, 2),
                  exp_weibull_raw_moment(k, scale, alpha, 3), exp_weibull_raw_moment(k, scale, alpha, 4));
}

Moments weibull_moments(double k, double scale) {
  const auto m = [&](int r) { return std::pow(scale, r) * std::tgamma(1.0 + r / k); };
  return from_raw(m(1), m(2), m(3), m(4));
}

Moments lognormal_moments(double mu, double sigma) {
  const auto m = [&](int r) { return std::exp(r * mu + 0.5 * r * r * sigma * sigma); };
  return from_raw(m(1), m(2), m(3), m(4));
}

Sampler of(const Distribution& d) {
  return [d](Rng& rng) { return d.sample(rng); };
}

}  // namespace

TEST_CASE("samplers are pinned to the documented formulas", "[distributions]") {
  // Values from an independent implementation of Rng(7) and the formulas in
  // distributions.h; a change here changes every run's results.
  Rng rng(7);
  CHECK(standard_exponential(rng) == Approx(1.2058962602474497).epsilon(1e-13));
  CHECK(standard_normal(rng) == Approx(0.8533023079774938).epsilon(1e-13));
  CHECK(exp_weibull(rng, 1.5, 100, 0.4) == Approx(211.06713794031697).epsilon(1e-13));
}

TEST_CASE("moments of every Distribution kind", "[distributions]") {
  SECTION("fixed") {
    const auto x = draw(of(Distribution::fixed(42.5)), 1000, 1);
    CHECK(std::all_of(x.begin(), x.end(), [](double v) { return v == 42.5; }));
    CHECK(Distribution::fixed(42.5).mean() == 42.5);
  }
  SECTION("uniform") {
    const auto d = Distribution::uniform(2, 5);
    CHECK(d.mean() == 3.5);
    const auto m = [](int r) { return (std::pow(5.0, r + 1) - std::pow(2.0, r + 1)) / (3.0 * (r + 1)); };
    check_moments(draw(of(d), kMomentDraws, 2), from_raw(m(1), m(2), m(3), m(4)));
  }
  SECTION("exponential") {
    const auto d = Distribution::exponential(3600);
    CHECK(d.mean() == 3600);
    const double s = 3600;
    check_moments(draw(of(d), kMomentDraws, 3), from_raw(s, 2 * s * s, 6 * s * s * s, 24 * s * s * s * s));
  }
  SECTION("weibull") {
    for (const double k : {0.7, 1.0, 3.0}) {
      const auto d = Distribution::weibull(k, 1000);
      const Moments th = weibull_moments(k, 1000);
      CHECK(d.mean() == Approx(th.mean).epsilon(1e-12));
      check_moments(draw(of(d), kMomentDraws, 4), th);
    }
  }
  SECTION("lognormal") {
    const auto d = Distribution::lognormal_mean_sigma(3600, 1.0);
    const Moments th = lognormal_moments(std::log(3600.0) - 0.5, 1.0);
    CHECK(d.mean() == 3600);
    CHECK(th.mean == Approx(3600).epsilon(1e-12));
    check_moments(draw(of(d), kMomentDraws, 5), th);
    const auto cv = Distribution::lognormal_mean_cv(10, 0.5);
    const LognormalParams p = lognormal_params_from_mean_cv(10, 0.5);
    check_moments(draw(of(cv), kMomentDraws, 6), lognormal_moments(p.mu, p.sigma));
  }
  SECTION("normal, truncation negligible") {
    // 10 sd above 0: the truncation shifts the mean by ~1e-22.
    const auto d = Distribution::normal(10, 1);
    CHECK(d.mean() == Approx(10).epsilon(1e-15));
    check_moments(draw(of(d), kMomentDraws, 7), {10, 1, 3});
  }
  SECTION("normal, truncated at 0 by resampling") {
    // X | X >= 0 for X ~ N(1, 1): with a = -1, l = phi(a) / (1 - Phi(a)),
    // mean = 1 + l and variance = 1 + a l - l^2.
    const auto d = Distribution::normal(1, 1);
    const double a = -1.0, pdf = std::exp(-0.5) / std::sqrt(2 * std::numbers::pi);
    const double l = pdf / (1 - phi(a));
    CHECK(d.mean() == Approx(1 + l).epsilon(1e-12));
    const auto x = draw(of(d), kMomentDraws, 8);
    CHECK(*std::min_element(x.begin(), x.end()) >= 0.0);
    const Moments s = of_sample(x);
    check_moments(x, {1 + l, 1 + a * l - l * l, s.mu4});
  }
  SECTION("exp_weibull, integer alpha (closed-form moments)") {
    for (const auto& [k, alpha] : {std::pair{1.5, 2}, std::pair{0.8, 3}}) {
      const auto d = Distribution::exp_weibull(k, 100, alpha);
      const Moments th = exp_weibull_moments(k, 100, alpha);
      CHECK(d.mean() == Approx(th.mean).epsilon(1e-10));
      check_moments(draw(of(d), kMomentDraws, 9), th);
    }
  }
  SECTION("exp_weibull, fractional alpha (mean only, against mean())") {
    const auto d = Distribution::exp_weibull(2.0, 10, 0.3);
    const auto x = draw(of(d), kMomentDraws, 10);
    check_moments(x, {d.mean(), of_sample(x).var, 0}, false);
  }
  SECTION("empirical") {
    const auto data = draw([](Rng& r) { return lognormal(r, 2, 0.7); }, 500, 11);
    const auto d = Distribution::empirical(data);
    const auto x = draw(of(d), kMomentDraws, 12);
    check_moments(x, {d.mean(), of_sample(x).var, 0}, false);
  }
}

TEST_CASE("KS against analytic CDFs at n = 1e5", "[distributions]") {
  SECTION("exponential") {
    check_ks([](Rng& r) { return exponential(r, 2.0); }, [](double x) { return -std::expm1(-x / 2.0); }, 21);
  }
  SECTION("weibull") {
    check_ks([](Rng& r) { return weibull(r, 0.7, 3.0); },
             [](double x) { return -std::expm1(-std::pow(x / 3.0, 0.7)); }, 22);
  }
  SECTION("lognormal") {
    check_ks([](Rng& r) { return lognormal(r, 1.0, 0.8); },
             [](double x) { return phi((std::log(x) - 1.0) / 0.8); }, 23);
  }
  SECTION("normal") {
    check_ks([](Rng& r) { return normal(r, -1.0, 2.0); }, [](double x) { return phi((x + 1.0) / 2.0); }, 24);
  }
  SECTION("exp_weibull") {
    for (const double alpha : {0.4, 1.0, 3.5}) {
      check_ks([alpha](Rng& r) { return exp_weibull(r, 1.5, 100.0, alpha); },
               [alpha](double x) { return std::pow(-std::expm1(-std::pow(x / 100.0, 1.5)), alpha); }, 25);
    }
  }
  SECTION("uniform") {
    check_ks([](Rng& r) { return uniform(r, -1.0, 3.0); }, [](double x) { return (x + 1.0) / 4.0; }, 26);
  }
  SECTION("truncated normal Distribution") {
    const double z = 1.0 - phi(-1.0);
    check_ks(of(Distribution::normal(1, 1)), [z](double x) { return (phi(x - 1.0) - phi(-1.0)) / z; }, 27);
  }
  SECTION("the test has power: weibull samples are not exponential") {
    const auto x = draw([](Rng& r) { return weibull(r, 0.8, 1.0); }, kKsDraws, 28);
    const double d = ks_statistic(x, [](double v) { return -std::expm1(-v / weibull_mean(0.8, 1.0)); });
    CHECK(d * std::sqrt(static_cast<double>(kKsDraws)) > kKsCritical);
  }
}

TEST_CASE("analytic mean helpers", "[distributions]") {
  CHECK(weibull_mean(1.0, 5.0) == Approx(5.0).epsilon(1e-14));
  CHECK(weibull_mean(2.0, 1.0) == Approx(std::sqrt(std::numbers::pi) / 2).epsilon(1e-14));
  CHECK(lognormal_mean(0.0, 1.0) == Approx(std::exp(0.5)).epsilon(1e-14));
  CHECK(normal_truncated_at_zero_mean(5.0, 0.0) == 5.0);
  CHECK(normal_truncated_at_zero_mean(100.0, 1.0) == Approx(100.0).epsilon(1e-14));
  for (const double k : {0.3, 0.7, 1.0, 1.5, 4.0}) {
    INFO("shape " << k);
    CHECK(exp_weibull_mean(k, 7.0, 1.0) == Approx(weibull_mean(k, 7.0)).epsilon(1e-10));
    for (const int alpha : {2, 3, 5}) {
      INFO("alpha " << alpha);
      CHECK(exp_weibull_mean(k, 7.0, alpha) ==
            Approx(exp_weibull_raw_moment(k, 7.0, alpha, 1)).epsilon(1e-10));
    }
  }
}

TEST_CASE("lognormal parameters from mean and cv / stddev", "[distributions]") {
  const LognormalParams p = lognormal_params_from_mean_cv(3600, 0.5);
  CHECK(lognormal_mean(p.mu, p.sigma) == Approx(3600).epsilon(1e-13));
  const double var = std::expm1(p.sigma * p.sigma) * 3600.0 * 3600.0;
  CHECK(std::sqrt(var) == Approx(1800).epsilon(1e-13));
  const LognormalParams q = lognormal_params_from_mean_stddev(3600, 1800);
  CHECK(q.mu == Approx(p.mu).epsilon(1e-15));
  CHECK(q.sigma == Approx(p.sigma).epsilon(1e-15));
  CHECK(lognormal_params_from_mean_cv(5, 0).sigma == 0.0);
  CHECK_THROWS_AS(lognormal_params_from_mean_cv(0, 1), std::invalid_argument);
  CHECK_THROWS_AS(lognormal_params_from_mean_stddev(1, -1), std::invalid_argument);
}

TEST_CASE("Categorical: frequencies by chi-square", "[distributions]") {
  SECTION("small table with zero weights") {
    const Categorical c({1, 0, 3, 0.5, 5.5});
    CHECK(c.size() == 5);
    CHECK(c.probability(2) == Approx(0.3).epsilon(1e-15));
    CHECK(c.probability(1) == 0.0);
    Rng rng(31);
    const int draws = 1000000;
    std::vector<int> counts(5, 0);
    for (int i = 0; i < draws; ++i) ++counts[c.sample(rng)];
    CHECK(counts[1] == 0);
    double stat = 0.0;
    for (const int i : {0, 2, 3, 4}) {
      const double e = draws * c.probability(i);
      stat += (counts[i] - e) * (counts[i] - e) / e;
    }
    CHECK(stat < chi_square_critical(3));
  }
  SECTION("many random weights") {
    Rng weights_rng(32);
    std::vector<double> w(100);
    for (double& v : w) v = exponential(weights_rng, 1.0);
    const Categorical c(w);
    double total = 0.0;
    for (size_t i = 0; i < c.size(); ++i) total += c.probability(i);
    CHECK(total == Approx(1.0).epsilon(1e-12));
    Rng rng(33);
    const int draws = 1000000;
    std::vector<int> counts(100, 0);
    for (int i = 0; i < draws; ++i) ++counts[c.sample(rng)];
    double stat = 0.0;
    for (size_t i = 0; i < c.size(); ++i) {
      const double e = draws * c.probability(i);
      stat += (counts[i] - e) * (counts[i] - e) / e;
    }
    CHECK(stat < chi_square_critical(99));
  }
  SECTION("degenerate tables") {
    Rng rng(34);
    const Categorical one({2.0}), last({0, 0, 1});
    for (int i = 0; i < 1000; ++i) {
      REQUIRE(one.sample(rng) == 0);
      REQUIRE(last.sample(rng) == 2);
    }
  }
}

TEST_CASE("Categorical rejects bad weights", "[distributions]") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  CHECK_THROWS_AS(Categorical({}), std::invalid_argument);
  CHECK_THROWS_AS(Categorical({0, 0}), std::invalid_argument);
  CHECK_THROWS_WITH(Categorical({1, -1}), Catch::Contains("weight 1"));
  CHECK_THROWS_AS(Categorical({1, nan}), std::invalid_argument);
  CHECK_THROWS_AS(Categorical({1, inf}), std::invalid_argument);
}

TEST_CASE("Empirical: quantiles, mean, sampling", "[distributions]") {
  const Empirical e({3, 1, 2});
  CHECK(e.sorted_samples() == std::vector<double>{1, 2, 3});
  CHECK(e.mean() == 2.0);
  CHECK(e.quantile(0.0) == 1.0);
  CHECK(e.quantile(1.0 / 6) == 1.0);  // x_0 sits at (0 + 0.5) / 3
  CHECK(e.quantile(1.0 / 3) == Approx(1.5));
  CHECK(e.quantile(0.5) == Approx(2.0));
  CHECK(e.quantile(1.0) == 3.0);

  const Empirical point({4.0});
  Rng rng(41);
  for (int i = 0; i < 100; ++i) REQUIRE(point.sample(rng) == 4.0);

  const auto data = draw([](Rng& r) { return weibull(r, 0.6, 100); }, 1000, 42);
  double sum = 0.0;
  for (const double v : data) sum += v;
  const Empirical fit(data);
  CHECK(fit.mean() == Approx(sum / 1000).epsilon(1e-14));
  const auto x = draw([&fit](Rng& r) { return fit.sample(r); }, kMomentDraws, 43);
  const auto [lo, hi] = std::minmax_element(x.begin(), x.end());
  CHECK(*lo >= fit.sorted_samples().front());
  CHECK(*hi <= fit.sorted_samples().back());
  check_moments(x, {fit.mean(), of_sample(x).var, 0}, false);

  CHECK_THROWS_AS(Empirical({}), std::invalid_argument);
  CHECK_THROWS_AS(Empirical({1, std::numeric_limits<double>::quiet_NaN()}), std::invalid_argument);
  CHECK_THROWS_AS(Empirical({std::numeric_limits<double>::infinity()}), std::invalid_argument);
}

TEST_CASE("Distribution rejects invalid parameters with clear messages", "[distributions]") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  using Catch::Contains;
  CHECK_THROWS_WITH(Distribution::fixed(-1), Contains("fixed") && Contains("value"));
  CHECK_THROWS_AS(Distribution::fixed(nan), std::invalid_argument);
  CHECK_THROWS_WITH(Distribution::uniform(2, 1), Contains("hi must be >= lo"));
  CHECK_THROWS_AS(Distribution::uniform(-1, 1), std::invalid_argument);
  CHECK_THROWS_WITH(Distribution::exponential(0), Contains("exponential: mean must be"));
  CHECK_THROWS_WITH(Distribution::weibull(0, 1), Contains("weibull: shape must be") && Contains("got 0"));
  CHECK_THROWS_WITH(Distribution::weibull(-1, 1), Contains("got -1"));
  CHECK_THROWS_WITH(Distribution::weibull(1, 0), Contains("scale"));
  CHECK_THROWS_AS(Distribution::weibull(0.001, 1), std::invalid_argument);  // infinite mean
  CHECK_THROWS_AS(Distribution::lognormal(nan, 1), std::invalid_argument);
  CHECK_THROWS_AS(Distribution::lognormal(0, -1), std::invalid_argument);
  CHECK_THROWS_WITH(Distribution::lognormal_mean_sigma(0, 1), Contains("lognormal: mean"));
  CHECK_THROWS_WITH(Distribution::lognormal_mean_sigma(1, -1), Contains("sigma"));
  CHECK_THROWS_AS(Distribution::lognormal_mean_cv(1, -0.5), std::invalid_argument);
  CHECK_THROWS_AS(Distribution::lognormal_mean_stddev(-1, 1), std::invalid_argument);
  CHECK_THROWS_WITH(Distribution::normal(0, 1), Contains("normal: mean"));
  CHECK_THROWS_WITH(Distribution::normal(1, -1), Contains("sd"));
  CHECK_THROWS_WITH(Distribution::exp_weibull(1, 1, 0), Contains("alpha"));
  CHECK_THROWS_WITH(Distribution::exp_weibull(0, 1, 1), Contains("shape"));
  CHECK_THROWS_AS(Distribution::empirical({}), std::invalid_argument);
  CHECK_THROWS_WITH(Distribution::empirical({1, -2}), Contains("empirical: samples must be >= 0"));
}

TEST_CASE("Distribution: describe, kind, value semantics", "[distributions]") {
  CHECK(Distribution().describe() == "fixed(0)");
  CHECK(Distribution::fixed(5).describe() == "fixed(5)");
  CHECK(Distribution::uniform(1, 2.5).describe() == "uniform(lo=1, hi=2.5)");
  CHECK(Distribution::exponential(3600).describe() == "exponential(mean=3600)");
  CHECK(Distribution::weibull(0.7, 86400).describe() == "weibull(shape=0.7, scale=86400)");
  CHECK(Distribution::lognormal_mean_sigma(3600, 1).describe() == "lognormal(mean=3600, sigma=1)");
  CHECK(Distribution::normal(10, 2).describe() == "normal(mean=10, sd=2, truncated at 0)");
  CHECK(Distribution::exp_weibull(1.5, 100, 0.4).describe() == "exp_weibull(shape=1.5, scale=100, alpha=0.4)");
  CHECK(Distribution::empirical({1, 2, 6}).describe() == "empirical(n=3, mean=3)");

  CHECK(Distribution().kind() == Distribution::Kind::kFixed);
  CHECK(Distribution::exp_weibull(1, 1, 1).kind() == Distribution::Kind::kExpWeibull);
  CHECK(Distribution::kind_name(Distribution::Kind::kExpWeibull) == "exp_weibull");

  const Distribution original = Distribution::empirical({1, 5, 9});
  const Distribution copy = original;  // NOLINT(performance-unnecessary-copy-initialization)
  Rng a(51), b(51);
  for (int i = 0; i < 100; ++i) REQUIRE(original.sample(a) == copy.sample(b));
}

TEST_CASE("every Distribution kind samples >= 0", "[distributions]") {
  const std::vector<Distribution> all = {
      Distribution::fixed(0), Distribution::uniform(0, 1), Distribution::exponential(1),
      Distribution::weibull(0.5, 1), Distribution::lognormal(-5, 3), Distribution::normal(0.1, 5),
      Distribution::exp_weibull(0.5, 1, 0.2), Distribution::empirical({0, 0.5})};
  Rng rng(61);
  for (const Distribution& d : all) {
    INFO(d.describe());
    for (int i = 0; i < 10000; ++i) {
      const double x = d.sample(rng);
      REQUIRE(std::isfinite(x));
      REQUIRE(x >= 0.0);
    }
  }
}

}  // namespace goodsim::core
