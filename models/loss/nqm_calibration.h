// Internal to models/loss (it includes Eigen): never include it from another
// folder. The nqm tier's calibration (nqm.h, docs/loss.md).
#pragma once

#include <Eigen/Dense>

#include "models/loss/loss_model.h"
#include "models/loss/nqm.h"

namespace goodsim::models::loss::detail {

// Derives the calibration of the nqm header comment for `shape`; fills the
// eigenvalues h and the initial parameter means theta0 (both of c.dims).
NqmCalibration calibrate(const NqmConfig& c, const TrainingShape& shape, Eigen::ArrayXd& h,
                         Eigen::ArrayXd& theta0);

// 1/2 sum_i h_i E[g_i^2] of synchronous DiLoCo after floor(steps / H) rounds:
// every learner in every merge, global batch `batch` (tokens), plain mean,
// outer Nesterov.
// Closed form per dimension (the round is an affine map of the moments of
// (g, u), raised to the number of rounds by squaring).
double sync_reference_excess(const Eigen::ArrayXd& h, const Eigen::ArrayXd& theta0,
                             const NqmCalibration& cal, const NqmConfig& c, uint32_t inner_h,
                             double batch, double steps);

}  // namespace goodsim::models::loss::detail
