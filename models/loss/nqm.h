// nqm: the noisy-quadratic-model loss tier (docs/loss.md). It runs the
// optimizer dynamics of the policy on a d-dimensional quadratic instead of
// pricing tokens with discounts.
//
// The model. Parameters theta in R^d (distance to the optimum), loss
//   L(theta) = L_inf + 1/2 sum_i h_i theta_i^2,
// eigenvalues h_i = i^-p (i = 1..d, h_1 = 1). A minibatch of b tokens gives
// the gradient h_i theta_i + xi_i with independent xi_i ~ N(0, c h_i / b)
// (gradient noise covariance proportional to the curvature, as in the NQM of
// Zhang et al. 2019). Inner optimizer: plain SGD with learning rate eta
// (a heavy-ball inner optimizer with momentum mu behaves, on directions it
// resolves slowly, like SGD with eta / (1 - mu); we model that equivalent).
// Outer optimizer (DiLoCo): a merge of fragment p forms the outer gradient
// Delta = sum_c w_c Delta_c, then Nesterov: u <- mu_o u + Delta,
// theta_g <- theta_g - lr_o (Delta + mu_o u); the contributors overwrite their
// copy with theta_g. outer_gradient "global" (default, as the reference
// describes the syncer): Delta_c = theta_g - theta_c, the syncer's fragment
// minus the copy, so a copy grown from an old base also pulls the global
// fragment back toward that base; "base": Delta_c = base_c - theta_c, the
// copy's own progress since it received the fragment (a delayed outer
// gradient). Both agree when every contributor holds the newest fragment.
// Fragments are contiguous blocks of dimensions: fragment p is
// [floor(p d / P), floor((p + 1) d / P)).
// Merges: token weights w_c / sum w (plain weighted mean), or radial-
// directional averaging: the norms ||Delta_c|| and the unit directions
// Delta_c / ||Delta_c|| are averaged separately (weighted), so the merged
// outer gradient has the mean norm. Norms are root-mean-square norms over the
// fragment (the value the norm concentrates on as the fragment grows); with
// them fixed, the merge is linear.
//
// Exact closed form. Every operation (SGD steps, merges, outer steps,
// overwrites) is linear with independent Gaussian noise and acts on each
// dimension separately, so per dimension the learners' copies, the global
// fragment and the outer momentum are jointly Gaussian. The model keeps their
// means and covariances exactly and reports the expected loss
// L_inf + 1/2 sum h_i E[theta_g,i^2] (memory O(M^2 d) at worst). k SGD steps at batch b
// are applied at once: mean *= r^k, variance = r^2k variance +
// eta c / (b (2 - eta h)) (1 - r^2k), r = 1 - eta h, with r^k combined from
// tabulated r^(2^j) (no transcendental per event). Steps are logged per
// learner (runs of equal batch) and applied to a fragment only when it needs
// them (a merge the learner contributes to; loss() for data parallel), and a
// learner's copy is kept as decay x (a version of the global fragment) + its
// own noise (nqm_fragment.h). Cost: on_inner_steps O(1); a merge of n
// contributors O(n popcount(k) d / P) when they hold the newest fragment,
// up to O(M^2 d / P) when every copy descends from a different version;
// loss() O(P). Nothing is sampled: curves are deterministic, and the run's
// Rng is not used.
//
// Calibration (start(), from N and the scaling fits; docs/loss.md):
//   T*  = 20 N / b*, the steps of a data-parallel run at the optimal batch b*
//         (ScalingFits::optimal_batch) to the fits' budget;
//   eta = lr (in units of 1 / h_1);
//   p   = ln(2 eta window T*) / ln d, so the flattest direction starts to be
//         learned window x T* steps in: the loss follows a power law in the
//         steps from ~T* / window to ~window x T*;
//   theta_i(0)^2 = K i^(p (1 - beta) - 1): the noise-free loss then falls as
//         steps^-beta, the Chinchilla data exponent;
//   c   such that at T* and b* the noise part of the loss is beta times the
//         noise-free part (times noise_scale): with the noise-free part
//         ~ (D / b)^-beta and the noise part ~ 1 / b, that is the condition
//         for b* to minimise the loss at a fixed token budget D;
//   K   such that the excess loss at T* and b* equals the scaling law's data
//         part, and L_inf = its D -> infinity limit (ScalingFits::limit_part).
// So a data-parallel run at b* has exactly the published DP loss at D = 20N,
// and the curve stays within a few percent of the scaling-law tier from 0.01x
// to 100x the budget. DiLoCo's inner learning rate is eta (1 - mu_o) / lr_o,
// so the outer step's amplification lr_o / (1 - mu_o) restores eta on slowly
// learned directions (the NQM's version of tuning each method's inner
// learning rate). A quadratic cannot produce the published cost of more
// learners, so with calibrate_diloco (default) DiLoCo's loss is multiplied by
//   Phi_M(N) f(H) / L_sync,
// L_sync being this model's loss of synchronous DiLoCo (every learner in every
// merge, global batch b*, plain mean) at 20N, computed in closed form at
// start: synchronous DiLoCo then reaches the published per-M fit, and every
// departure from it (stragglers left out, staleness, smaller batches) moves
// the loss through the dynamics.
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
