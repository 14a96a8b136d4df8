// `goodsim sweep --shard i/n`: the i-th of n deterministic parts of a sweep's
// runs, for job arrays without MPI (docs/scale-out.md).
//
// Fixed replication: run (point p, seed index k) belongs to shard
// (p * seeds + k) mod n, so heavy and light grid points are spread over all
// shards. Adaptive replication (--ci-target): a point's rounds depend on all
// of its seeds, so whole points are dealt out: point p belongs to shard p mod n.
// Shards are numbered from 0, as Slurm's --array=0-(n-1) numbers its tasks.
#pragma once

#include <cstddef>
#include <string_view>

#include "app/sweep/replication.h"

namespace goodsim::app::sweep {

struct Shard {
  size_t index = 0;
  size_t count = 1;

  bool owns(size_t point, size_t k, const Replication& r) const {
    if (r.ci_target) return point % count == index;
    return (point * r.initial + k) % count == index;
  }
};

// Parses "i/n" (0 <= i < n <= 100000). Throws ScenarioError("--shard", ...).
Shard parse_shard(std::string_view text);

}  // namespace goodsim::app::sweep
