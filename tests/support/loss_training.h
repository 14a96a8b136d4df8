// Driving a loss model through a whole training run, for the loss tests:
// the published fits written out (not read from the defaults under test) and
// a synchronous schedule that lands on a token budget exactly.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "models/loss/loss_model.h"
#include "models/loss/scaling_fits.h"
#include "sim/core/rng.h"

namespace goodsim::testing {

// Scaling Laws for DiLoCo (arXiv 2503.09799): loss = a N^alpha at D = 20N, H = 30.
struct PublishedFit {
  uint32_t learners;  // 0: data parallel
  double a;
  double alpha;
};
inline const std::vector<PublishedFit> kPublishedFits = {{0, 18.129, -0.0953},
                                                         {1, 18.363, -0.0961},
                                                         {2, 18.768, -0.0969},
                                                         {4, 19.762, -0.0992},
                                                         {8, 21.051, -0.1018}};

// Trains to `tokens` at global batch `batch` (tokens per step over all
// learners; 0: the method's optimal batch B*(N, M)): data parallel step by
// step, DiLoCo in synchronous rounds of H steps (every learner in every merge
// of each of the P fragments), the last round cut to land on `tokens` exactly.
inline double train(models::loss::LossModel& model, double n, uint32_t learners, uint32_t h,
                    uint32_t p, double tokens, double batch = 0) {
  using models::loss::Contribution;
  const bool dp = h == 0;
  const uint32_t m = dp ? 1 : learners;
  if (batch == 0) batch = models::loss::ScalingFits{}.optimal_batch(n, m);
  const double per_learner = batch / m;
  model.start({n, batch, m, h, p}, core::Rng(7));
  if (dp) {
    model.on_inner_steps(0, static_cast<uint64_t>(tokens / per_learner), per_learner);
    return model.loss();
  }
  double done = 0;
  while (done < tokens) {
    const double round = std::min(tokens - done, double(h) * batch) / m;  // per learner
    std::vector<Contribution> cs;
    for (uint32_t k = 0; k < m; ++k) {
      model.on_inner_steps(k, h, per_learner);
      cs.push_back({k, round * per_learner, round, h});  // weight = tokens x (tokens / steps)
    }
    for (uint32_t f = 0; f < p; ++f) model.on_merge(f, cs);
    done += round * m;
  }
  return model.loss();
}

}  // namespace goodsim::testing
