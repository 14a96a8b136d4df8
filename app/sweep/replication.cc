#include "app/sweep/replication.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "sim/scenario/error.h"
#include "sim/scenario/scenario.h"

namespace goodsim::app::sweep {

size_t Replication::next_count(size_t n, const std::vector<Estimate>& goodput) const {
  if (!ci_target || n >= max_seeds) return n;
  double widest = 0;
  for (const Estimate& e : goodput) {
    // NaN (fewer than two values) counts as not yet met.
    widest =
        std::isnan(e.ci95) ? std::numeric_limits<double>::infinity() : std::max(widest, e.ci95);
  }
  if (widest < *ci_target) return n;
  const double ratio = widest / *ci_target;
  const double wanted = std::ceil(static_cast<double>(n) * ratio * ratio);
  const size_t cap = std::min(2 * n, max_seeds);
  if (!(wanted < static_cast<double>(cap))) return cap;
  return std::clamp(static_cast<size_t>(wanted), n + 1, cap);
}

Replication make_replication(uint64_t first_seed, size_t seeds, std::optional<double> ci_target,
                             std::optional<size_t> max_seeds) {
  constexpr size_t kLimit = 1'000'000;
  if (seeds < 1 || seeds > kLimit) {
    throw scenario::ScenarioError("--seeds", "",
                                  fmt::format("expected 1 to {}, got {}", kLimit, seeds));
  }
  Replication r{first_seed, seeds, ci_target, seeds};
  if (!ci_target) {
    if (max_seeds)
      throw scenario::ScenarioError("--max-seeds", "", "only applies with --ci-target");
    scenario::check_replication_seeds(first_seed, seeds, "--seeds");
    return r;
  }
  if (!(*ci_target > 0) || !std::isfinite(*ci_target)) {
    throw scenario::ScenarioError(
        "--ci-target", "", fmt::format("expected a goodput CI half-width > 0, got {}", *ci_target));
  }
  if (seeds < 2) {
    throw scenario::ScenarioError("--seeds", "",
                                  "--ci-target needs at least 2 initial seeds for a CI");
  }
  r.max_seeds = max_seeds.value_or(std::max<size_t>(100, seeds));
  if (r.max_seeds < seeds || r.max_seeds > kLimit) {
    throw scenario::ScenarioError(
        "--max-seeds", "",
        fmt::format("expected {} (--seeds) to {}, got {}", seeds, kLimit, r.max_seeds));
  }
  scenario::check_replication_seeds(first_seed, r.max_seeds, max_seeds ? "--max-seeds" : "--seeds");
  return r;
}

}  // namespace goodsim::app::sweep
