#include "app/sweep/stats.h"

#include <array>
#include <cmath>
#include <limits>

#include "sim/core/check.h"

namespace goodsim::app::sweep {
namespace {

constexpr std::array<double, 30> kT975 = {
    12.706204736174659, 4.302652729749455,  3.182446305283704,  2.7764451051977908,
    2.5705818356363124, 2.4469118511449675, 2.3646242515927836, 2.3060041352041645,
    2.2621571627982022, 2.2281388519862735, 2.200985160091639,  2.178812829667226,
    2.160368656462793,  2.1447866879178017, 2.1314495455597737, 2.1199052992212537,
    2.1098155778333143, 2.100922040241037,  2.093024054408307,  2.085963447265864,
    2.0796138447276777, 2.073873067904026,  2.0686576104190473, 2.063898561628025,
    2.0595385527532937, 2.055529438642871,  2.051830516480284,  2.0484071417952476,
    2.045229642132701,  2.0422724563012324};

// The continued fraction of the regularized incomplete beta I_x(a, b) (modified Lentz).
double beta_fraction(double a, double b, double x) {
  constexpr double kTiny = 1e-300;
  double c = 1, d = 1 - (a + b) * x / (a + 1);
  d = 1 / (std::abs(d) < kTiny ? kTiny : d);
  double h = d;
  for (int m = 1; m <= 500; ++m) {
    for (int odd = 0; odd < 2; ++odd) {
      const double num = odd == 0 ? m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m))
                                  : -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
      d = 1 + num * d;
      d = 1 / (std::abs(d) < kTiny ? kTiny : d);
      c = 1 + num / c;
      if (std::abs(c) < kTiny) c = kTiny;
      h *= d * c;
      if (odd == 1 && std::abs(d * c - 1) < 1e-15) return h;
    }
  }
  return h;
}

double incomplete_beta(double a, double b, double x) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const double front = std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) +
                                a * std::log(x) + b * std::log1p(-x));
  if (x < (a + 1) / (a + b + 2)) return front * beta_fraction(a, b, x) / a;
  return 1 - front * beta_fraction(b, a, 1 - x) / b;
}

// P(T <= t) for t >= 0.
double t_cdf(double t, double df) { return 1 - 0.5 * incomplete_beta(df / 2, 0.5, df / (df + t * t)); }

}  // namespace

double t_quantile(double p, size_t df) {
  GOODSIM_CHECK(df >= 1 && p > 0.5 && p < 1);
  const double n = static_cast<double>(df);
  double lo = 0, hi = 1;
  while (t_cdf(hi, n) < p) hi *= 2;
  for (int i = 0; i < 200 && hi - lo > 1e-13 * hi; ++i) {
    const double mid = (lo + hi) / 2;
    (t_cdf(mid, n) < p ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

double t975(size_t df) {
  GOODSIM_CHECK(df >= 1);
  if (df <= kT975.size()) return kT975[df - 1];
  // Cornish-Fisher expansion of t around the normal quantile z.
  const double z = 1.959963984540054;
  const double n = static_cast<double>(df);
  const double z3 = z * z * z, z5 = z3 * z * z, z7 = z5 * z * z, z9 = z7 * z * z;
  const double g1 = (z3 + z) / 4;
  const double g2 = (5 * z5 + 16 * z3 + 3 * z) / 96;
  const double g3 = (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / 384;
  const double g4 = (79 * z9 + 776 * z7 + 1482 * z5 - 1920 * z3 - 945 * z) / 92160;
  return z + g1 / n + g2 / (n * n) + g3 / (n * n * n) + g4 / (n * n * n * n);
}

Estimate estimate(const std::vector<double>& values) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Estimate e{values.size(), nan, nan, nan};
  if (values.empty()) return e;
  double sum = 0;
  for (double v : values) sum += v;
  e.mean = sum / static_cast<double>(e.n);
  if (e.n < 2) return e;
  double squares = 0;
  for (double v : values) squares += (v - e.mean) * (v - e.mean);
  e.sd = std::sqrt(squares / static_cast<double>(e.n - 1));
  e.ci95 = t975(e.n - 1) * e.sd / std::sqrt(static_cast<double>(e.n));
  return e;
}

std::vector<double> present(const std::vector<std::optional<double>>& values) {
  std::vector<double> out;
  for (const auto& v : values) {
    if (v) out.push_back(*v);
  }
  return out;
}

Estimate paired_difference(const std::vector<std::optional<double>>& a,
                           const std::vector<std::optional<double>>& b) {
  GOODSIM_CHECK(a.size() == b.size());
  std::vector<double> diffs;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] && b[i]) diffs.push_back(*b[i] - *a[i]);
  }
  return estimate(diffs);
}

}  // namespace goodsim::app::sweep
