// Sample statistics for sweeps and checks: mean, standard deviation and the
// Student-t 95% confidence interval of a mean, and of a paired difference.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

namespace goodsim::app::sweep {

// The 0.975 quantile of Student's t with `df` degrees of freedom: exact to
// 1e-12 from a table for df <= 30, a 4-term Cornish-Fisher expansion beyond
// (error < 1e-7). REQUIRES: df >= 1.
double t975(size_t df);

// The p quantile of Student's t with `df` degrees of freedom, for any p in
// (0.5, 1): the root of the t CDF (a regularized incomplete beta function,
// evaluated by its continued fraction), found by bisection to 1e-12 relative.
// t_quantile(0.975, df) == t975(df) to 1e-9. REQUIRES: df >= 1, 0.5 < p < 1.
double t_quantile(double p, size_t df);

// Estimate of a mean from n values. sd is the sample standard deviation
// (n - 1 in the denominator) and ci95 the half-width t975(n - 1) * sd / sqrt(n);
// both are NaN when n < 2, and everything is NaN when n == 0.
struct Estimate {
  size_t n = 0;
  double mean = 0;
  double sd = 0;
  double ci95 = 0;
};

// Two-pass estimate (mean first, then squared deviations), so the result
// depends only on the values and their order.
Estimate estimate(const std::vector<double>& values);

// The present values of `values`, in order.
std::vector<double> present(const std::vector<std::optional<double>>& values);

// Paired differences b[i] - a[i] over the indices where both are present
// (same seed = same failure history, so the noise they share cancels).
// REQUIRES: a.size() == b.size().
Estimate paired_difference(const std::vector<std::optional<double>>& a,
                           const std::vector<std::optional<double>>& b);

}  // namespace goodsim::app::sweep
