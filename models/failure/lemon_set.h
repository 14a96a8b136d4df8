// Lemon chips: a fixed subset of the fleet that fails more often than the rest
// (Kokolis et al. HPCA 2025 report ~1.2% of nodes failing repeatedly).
//
// The subset is chosen once per run, at start, from the injector's own stream:
// k = round(fraction * chips) distinct chips, uniformly at random, by Floyd's
// algorithm (exactly k below() draws, O(k) time plus an n-bit membership
// bitmap). Ids are kept sorted, so the set (and everything drawn after it)
// depends only on (seed, stream, chips, fraction). No draw at all when k = 0.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/cluster/layout.h"
#include "sim/core/rng.h"

namespace goodsim::models::failure {

// k distinct integers of [0, n), uniformly, in increasing order (Floyd).
// REQUIRES: k <= n. Draws exactly k values from `rng`.
std::vector<uint32_t> choose_distinct(core::Rng& rng, uint64_t n, uint64_t k);

// LemonSet: sorted lemon ids and a membership bitmap. Default: no lemons.
class LemonSet {
 public:
  LemonSet() = default;
  // REQUIRES: 0 <= fraction <= 1, chips <= 2^32.
  static LemonSet choose(core::Rng& rng, uint64_t chips, double fraction);
  // Memory of the set choose() makes, computed without choosing.
  static double bytes_for(uint64_t chips, double fraction) {
    if (!(fraction > 0)) return 0;
    const auto n = static_cast<double>(chips);
    return fraction * n * sizeof(cluster::ChipId) + n / 8;
  }

  bool contains(cluster::ChipId c) const {
    return !bits_.empty() && ((bits_[c >> 6] >> (c & 63)) & 1) != 0;
  }
  size_t size() const { return ids_.size(); }
  bool empty() const { return ids_.empty(); }
  cluster::ChipId at(size_t i) const { return ids_[i]; }
  const std::vector<cluster::ChipId>& ids() const { return ids_; }

 private:
  std::vector<cluster::ChipId> ids_;
  std::vector<uint64_t> bits_;  // empty when there are no lemons
};

}  // namespace goodsim::models::failure
