// The fit of `goodsim calibrate`: weighted least squares of simulated means
// against observations, by Levenberg-Marquardt (Eigen's
// unsupported/NonLinearOptimization, MINPACK's lmder) on forward-difference
// Jacobians, in the knobs' normalised coordinates z in [0, 1] (knob.h).
//
// Residual of observation i: (simulated_i(z) - observed_i) / sigma_i, with
//   sigma_i^2 = uncertainty_i^2 + se_i^2
// fixed at the first start (se_i: the standard error of the simulated mean
// over the seeds there), and at least 1e-3 max(|observed_i|, 1e-9) so that a
// noise-free observation does not get an infinite weight.
//
// The box: the solver moves freely; candidates are evaluated at z clamped to
// [0, 1], so beyond a bound the objective is flat and the step returns.
// Difference steps of `step` (in z) point inward near the upper bound.
//
// Restarts: the first start is the box's centre; the next `restarts` starts
// are points of the Halton sequence (bases 2, 3, 5, ...), deterministic. The
// start with the lowest chi-square wins (ties: the earlier).
//
// Confidence region: from the Jacobian J at the optimum (Gauss-Newton Hessian
// J'J), covariance C = s^2 (J'J)^-1 in z with s^2 = max(1, chi2 / (m - n))
// (m observations, n knobs; s^2 = 1 when m == n), and each knob's 95%
// interval z +- 1.96 sqrt(C_jj) mapped back to values (multiplicative for a
// log-scale knob) and cut to the box. A knob whose column of J is zero (or
// J'J is singular) is not identified: its interval is the whole box.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <vector>

#include "app/calibrate/objective.h"

namespace goodsim::app::calibrate {

struct FitOptions {
  size_t restarts = 2;         // starts after the centre
  double step = 0.02;          // forward-difference step in z
  size_t max_iterations = 30;  // per start
};

struct KnobEstimate {
  double value = 0;
  double lo95 = 0, hi95 = 0;
  bool identified = true;
};

struct FitResult {
  std::vector<double> z;  // best point, normalised
  std::vector<KnobEstimate> knobs;
  Simulated at_best;
  std::vector<double> sigma;  // per observation, as above
  double chi2 = 0;            // sum of squared residuals at the best point
  size_t rank = 0;            // numerical rank of J at the best point: the knobs the
                              // observations move (the k of calibrate --choose's criterion)
  size_t iterations = 0;      // over all starts
};

// Runs the fit; writes one progress line per iteration to `progress`.
// REQUIRES: objective.knobs().size() <= objective.observations().size().
FitResult fit(Objective& objective, const FitOptions& options, std::ostream& progress);

// The i-th start (0: the centre) for n knobs; no later start is the centre.
std::vector<double> start_point(size_t i, size_t n);

}  // namespace goodsim::app::calibrate
