// scaling_law: the closed-form loss tier (docs/loss.md).
//
// loss() = ScalingFits::loss(N, D_eff, M, H): the calibrated Chinchilla-type
// law of scaling_fits.h in the effective tokens D_eff that reached the global
// model. At D_eff = 20N (optimal batch, no staleness, full merges) it returns
// the published fit of the method: data parallel or DiLoCo with M learners.
//
// D_eff grows by
//   data parallel (H = 0): every inner step, steps * b * eta_batch(b);
//   DiLoCo: every merge of fragment p (1 of P fragments, so a token counts
//     once when all P fragments have carried it):
//       D_eff += eta_left_out / P * sum_c tokens_c * eta_batch(b_c) * eta_stale(s_c)
//     with b_c = weight_c / tokens_c, the contributor's mean batch per step.
// The discounts, each in (0, 1] (parameters in ScalingLawConfig):
//   (a) batch: eta_batch(b) = 1 / (1 + k * ln(b / b*)^2), b* the optimal
//       per-learner batch B*(N, M) / M, with M the learners taking part at
//       the merge (all but those that left: scavenged learners that join
//       raise M and lower b*; data parallel: M = 1 and b the global batch
//       of each stretch of steps); k = below or above as b < b* or
//       b > b*, divided by diloco_tolerance for DiLoCo (which tolerates
//       larger batches, as published). Defaults follow the nqm tier's
//       loss-vs-batch curve at D = 20N (0.5 b*: +0.5%, 2 b*: +2.7% loss).
//   (b) staleness: eta_stale(s) = 1 / (1 + max(0, s - free H) / (scale H)):
//       staleness up to `free` x H is the normal DiLoCo delay (already in the
//       fits); an excess of `scale` x H beyond it halves the value of the
//       tokens (twice that: 1/3). Non-increasing in s.
//   (c) left-out learners: eta_left_out = 1 - rho * l / (n + l) for a merge of
//       n contributors that leaves out l active learners (learners that have
//       not left; under heterogeneous speeds with quorum K = 1 and no grace the
//       fast learner merges alone while the slow one is still running). A solo
//       merge among M active learners keeps 1 - rho (M - 1) / M of its tokens.
//
// Cost: O(1) per inner-steps event, O(n + M) per merge; no allocation after
// start().
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "models/loss/loss_model.h"
#include "models/loss/scaling_fits.h"
#include "sim/scenario/reader.h"

namespace goodsim::models::loss {

struct ScalingLawConfig {
  ScalingFits fits;
  double batch_below = 0.2;      // k for batches below b*
  double batch_above = 1.0;      // k for batches above b*
  double diloco_tolerance = 2;   // DiLoCo's k = k / diloco_tolerance
  double staleness_free = 1;     // in units of H
  double staleness_scale = 4;    // in units of H
  double left_out_discount = 0.5;  // rho

  // The scaling fits (scaling_fits.h) plus "batch_sensitivity" {below, above,
  // diloco_tolerance}, "staleness" {free, scale} and "left_out_discount".
  static ScalingLawConfig from_json(scenario::ObjectReader& r);
};

class ScalingLawLoss final : public LossModel {
 public:
  explicit ScalingLawLoss(ScalingLawConfig config) : config_(std::move(config)) {}

  void start(const TrainingShape& shape, core::Rng rng) override;
  void on_inner_steps(uint32_t m, uint64_t steps, double batch_tokens) override;
  void on_merge(uint32_t p, const std::vector<Contribution>& contributors) override;
  void on_receive(uint32_t m, uint32_t p) override;
  void on_leave(uint32_t m) override;
  void on_rejoin(uint32_t m) override;
  double loss() const override;

  // Tokens counted so far, after discounts.
  double effective_tokens() const { return d_eff_; }
  // The discounts (exposed for tests and docs).
  double batch_efficiency(double batch_tokens) const;  // at b* of all M learners
  double batch_efficiency(double batch_tokens, double optimal) const;
  // b* of `learners` taking part: B*(N, learners) / learners (at least 1).
  double learner_optimal_batch(uint32_t learners) const;
  double staleness_efficiency(uint64_t staleness) const;
  double left_out_efficiency(uint32_t contributors, uint32_t left_out) const;

 private:
  bool data_parallel() const { return shape_.inner_steps_h == 0; }

  ScalingLawConfig config_;
  TrainingShape shape_;
  double d_eff_ = 0;
  double optimal_batch_ = 1;          // b*, per learner, tokens
  std::vector<uint8_t> active_;       // per learner: has not left
  std::vector<uint8_t> contributing_; // scratch for on_merge
};

}  // namespace goodsim::models::loss
