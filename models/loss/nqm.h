// nqm: the noisy-quadratic-model loss tier. Instead of pricing tokens with
// discounts, it runs the policy's optimizer dynamics (inner SGD steps, fragment
// merges with an outer Nesterov step, overwrites, rejoins) on a d-dimensional
// quadratic L(theta) = L_inf + 1/2 sum_i h_i theta_i^2 with curvature-shaped
// gradient noise, and reports the expected loss. The model, its exact closed
// form, its calibration and its costs are derived in docs/loss.md ("nqm").
//
// Contract:
// - Deterministic: nothing is sampled; the run's Rng given to start() is not
//   used. Equal event sequences give equal losses.
// - Calibrated at start() from the job's N and the scaling fits: a
//   data-parallel run at the optimal batch b* has exactly the published DP
//   loss at 20 N tokens; with calibrate_diloco (default), synchronous DiLoCo
//   has exactly the published per-M fit.
// - Fragments are contiguous blocks of dimensions: fragment p of P is
//   [floor(p d / P), floor((p + 1) d / P)).
// - Cost: on_inner_steps O(1); a merge of n contributors O(n popcount(k) d / P)
//   when they hold the newest fragment, up to O(M^2 d / P); loss() O(P);
//   memory O(M^2 d) at worst.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "models/loss/loss_model.h"
#include "models/loss/scaling_fits.h"
#include "sim/scenario/reader.h"

namespace goodsim::models::loss {

struct NqmConfig {
  ScalingFits fits;
  uint32_t dims = 1024;                  // d
  double lr = 0.5;                       // eta h_1 of data-parallel SGD, in (0, 2)
  double window = 100;                   // > 1
  std::optional<double> spectrum_exponent;  // p; default from window
  double noise_scale = 1;                // multiplies c; 0: noise-free
  double outer_lr = 0.7;                 // DiLoCo (Douillard et al. 2023)
  double outer_momentum = 0.9;
  std::optional<double> inner_lr_scale;  // DiLoCo inner eta / eta; default (1 - mu_o) / lr_o
  bool radial_directional = false;       // "averaging": "mean" | "radial_directional"
  bool from_base = false;                // "outer_gradient": "global" | "base"
  bool calibrate_diloco = true;

  // The scaling fits (scaling_fits.h) plus the keys above.
  static NqmConfig from_json(scenario::ObjectReader& r);
};

// What start() derived (see the header comment); plain numbers for tests and docs.
struct NqmCalibration {
  double budget_steps = 0;      // T*
  double optimal_batch = 0;     // b*, tokens
  double spectrum_exponent = 0; // p
  double lr = 0;                // eta (data parallel)
  double inner_lr = 0;          // DiLoCo's inner eta
  double init_scale = 0;        // K
  double noise = 0;             // c, per token
  double limit_loss = 0;        // L_inf
  double method_factor = 1;     // DiLoCo's calibration factor (1 for DP or when off)
};

class NqmLoss final : public LossModel {
 public:
  explicit NqmLoss(NqmConfig config);
  ~NqmLoss() override;
  NqmLoss(const NqmLoss&) = delete;
  NqmLoss& operator=(const NqmLoss&) = delete;

  void start(const TrainingShape& shape, core::Rng rng) override;
  void on_inner_steps(uint32_t m, uint64_t steps, double batch_tokens) override;
  void on_merge(uint32_t p, const std::vector<Contribution>& contributors) override;
  void on_receive(uint32_t m, uint32_t p) override;
  void on_rejoin(uint32_t m) override;
  double loss() const override;

  // Introspection. REQUIRES: start() ran, i < dims, m < learners.
  const NqmCalibration& calibration() const;
  double eigenvalue(uint32_t i) const;
  double global_mean(uint32_t i) const;
  double global_variance(uint32_t i) const;
  double learner_mean(uint32_t m, uint32_t i) const;
  double learner_variance(uint32_t m, uint32_t i) const;

 private:
  struct Impl;
  NqmConfig config_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace goodsim::models::loss
