// How many seeds each grid point of a sweep gets.
//
// Seeds of a grid point are first_seed, first_seed + 1, ... (first_seed is the
// scenario's "seed", 1 by default), so run k of every grid point uses the same
// seed and the same failure history whenever the varied keys leave the cluster
// and the failure models alone.
//
// Fixed replication: `initial` seeds per point. Adaptive replication (a
// ci_target): after the first `initial` seeds, a point whose goodput 95% CI
// half-width is >= ci_target for any policy gets more seeds, in rounds:
//   next = clamp(ceil(n * (h / ci_target)^2), n + 1, min(2 n, max_seeds))
// where h is the widest half-width (the CI shrinks as 1/sqrt(n); growth is at
// most doubling per round so a noisy early estimate cannot overshoot far).
// A round's decision depends only on the results of the point's first n
// seeds, never on timing, so the seeds a point ends with do not depend on
// --jobs and a resumed sweep makes the same decisions as an uninterrupted one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "app/sweep/stats.h"
#include "sim/scenario/scenario.h"

namespace goodsim::app::sweep {

struct Replication {
  uint64_t first_seed = 1;
  size_t initial = 10;
  std::optional<double> ci_target;
  size_t max_seeds = 10;  // == initial without a ci_target

  uint64_t seed(size_t k) const { return scenario::replication_seed(first_seed, k); }

  // Seeds the point should have, given the goodput estimates of its policies
  // over its first n seeds; n itself when the point is done.
  size_t next_count(size_t n, const std::vector<Estimate>& goodput) const;
};

// Checks and builds the rule from the command line. Throws ScenarioError
// ("--seeds", "--ci-target", "--max-seeds") on bad values.
Replication make_replication(uint64_t first_seed, size_t seeds, std::optional<double> ci_target,
                             std::optional<size_t> max_seeds);

}  // namespace goodsim::app::sweep
