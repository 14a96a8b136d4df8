// Surrogate loss models (docs/loss.md): turn what a training policy achieved
// (inner steps and their batch sizes, fragment merges with token weights and
// staleness, rejoins) into the loss of the global model, so policies can be
// compared on time to a target loss and not only on goodput.
//
// Two tiers, chosen by the scenario's "loss" object ({"type": ..., params};
// loss_config.h builds them):
//   scaling_law  closed form: a Chinchilla-type law in the effective tokens
//                that reached the global model, calibrated to the published
//                DiLoCo fits (scaling_law.h). O(1) per event, O(M) per merge.
//   nqm          a noisy quadratic model that runs the inner SGD, the merges
//                and the outer Nesterov step in closed form per dimension
//                (nqm.h). O(1) per inner-steps event, O(n d / P) per merge of n
//                contributors; Eigen stays inside models/loss/*.cc.
//
// How a policy drives a model (one model per policy run, events in simulated
// time order, never from two threads at once):
//   start(shape, rng)  once, before anything else (calling it again resets).
//   on_inner_steps     learner m completed `steps` inner steps at
//                      `batch_tokens` tokens per step (its current share of
//                      the batch). Report a learner's steps before any event
//                      that involves it (a merge it contributes to, a receive,
//                      a rejoin), so the steps apply to the state they ran on.
//   on_merge           fragment p merged the contributors' current copies of
//                      p, applied the outer optimizer, and the contributors
//                      now hold the new global fragment (alpha = 0).
//   on_receive         learner m overwrote its copy of fragment p with the
//                      current global fragment (it missed the broadcast, or
//                      applies the merged fragment at its own sync point).
//   on_leave           learner m stopped (failed, left): its unmerged work is
//                      lost. Optional for the policy; it only tells the models
//                      that m is not an active learner left out of merges.
//   on_rejoin          learner m starts again from the global model (all
//                      fragments).
//   loss()             the loss of the global model now.
// Data-parallel policies (inner_steps_h == 0, one learner m = 0) only report
// on_inner_steps: their steps update the global model directly, and the other
// events are ignored.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/core/rng.h"

namespace goodsim::models::loss {

// The run a loss model describes.
struct TrainingShape {
  double params = 0;               // N, model parameters
  double global_batch_tokens = 0;  // nominal global batch (all learners), tokens per step;
                                   // informational: the models use the reported batches
  uint32_t learners = 1;           // M (1 for data-parallel)
  uint32_t inner_steps_h = 0;      // H, inner steps between syncs of a fragment; 0: data parallel
  uint32_t fragments_p = 1;        // P, fragments the model is synced in
};

// One learner's copy of a fragment, merged by the syncer.
struct Contribution {
  uint32_t learner = 0;
  double weight = 0;       // tokens x (tokens / steps) since it last received the fragment
  double tokens = 0;       // tokens since it last received the fragment
  uint64_t staleness = 0;  // inner steps since its base (+ age of a base inherited on rejoin)
};

// Interface of every loss model. Losses are in nats per token (the units of
// the published fits).
class LossModel {
 public:
  virtual ~LossModel() = default;
  // REQUIRES: shape.params > 0, shape.global_batch_tokens > 0,
  // shape.learners >= 1, shape.fragments_p >= 1; inner_steps_h == 0 (data
  // parallel) only with learners == 1. `rng` is the model's own stream; the
  // built-in models are deterministic and do not draw from it.
  virtual void start(const TrainingShape& shape, core::Rng rng) = 0;
  // REQUIRES: m < learners, batch_tokens > 0.
  virtual void on_inner_steps(uint32_t m, uint64_t steps, double batch_tokens) = 0;
  // REQUIRES: p < fragments_p; every contributor's learner < learners and
  // appears once; weight, tokens >= 0.
  virtual void on_merge(uint32_t p, const std::vector<Contribution>& contributors) = 0;
  // REQUIRES: m < learners, p < fragments_p.
  virtual void on_receive(uint32_t m, uint32_t p) = 0;
  virtual void on_leave(uint32_t m) { static_cast<void>(m); }
  virtual void on_rejoin(uint32_t m) = 0;
  virtual double loss() const = 0;
};

}  // namespace goodsim::models::loss
