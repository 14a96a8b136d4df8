// Configuration of decoupled_diloco (docs/decoupled_diloco.md): M asynchronous
// learners, a CPU-only syncer holding P fragments, a minimum quorum K per
// fragment round, an optional adaptive grace window, rejoin costs and an
// optional scavenging schedule.
//
// Schedule arithmetic: fragment p is synchronised at the schedule steps
// c >= 1 with c mod H == t_p, t_p = floor(p H / P). The report of fragment p
// at step t_p + n H belongs to round n of that fragment.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "models/parse_context.h"
#include "models/policy/elastic_group.h"
#include "models/policy/fragment_transfer.h"
#include "sim/scenario/reader.h"
#include "sim/scenario/scenario.h"

namespace goodsim::models::policy {

// Learner `learner` is present only during [join, leave) of its windows
// (scavenged capacity); learners without a window are always present.
struct ScavengeWindow {
  uint32_t learner = 0;
  core::Duration join;
  core::Duration leave;  // > join
};

struct DecoupledDilocoConfig {
  uint32_t learners = 4;        // M
  uint64_t inner_steps = 24;    // H
  uint32_t fragments = 24;      // P, 1 <= P <= H
  uint64_t overlap_steps = 2;   // tau, <= H
  uint32_t quorum = 1;          // K, 1 <= K <= M
  bool grace = false;           // adaptive grace window on/off
  double gamma = 0.5;           // share of the idle slack the grace window may use, < 1
  double ema_weight = 0.2;      // weight of the newest observation in the moving averages
  std::optional<double> state_bytes;  // parameters + optimizer state pulled on rejoin
  core::Duration rejoin_overhead;     // restart of a learner's program, on top of the pull
  ElasticSpec elastic;                // per learner; restart_time == rejoin_overhead
  FragmentTransfer transfer;          // layers per fragment, bits per value
  std::vector<ScavengeWindow> schedule;
  bool fast_forward = true;           // skip steady stretches and settled learners

  // t_p. REQUIRES: p < fragments.
  uint64_t offset(uint32_t p) const { return uint64_t{p} * inner_steps / fragments; }
  // state_bytes, or its default of 3 x job.gradient_bytes.
  double resolved_state_bytes(const scenario::JobSpec& job) const {
    return state_bytes ? *state_bytes : 3.0 * job.gradient_bytes;
  }

  // Rejects P > H, tau > H, K > M, gamma >= 1, a schedule naming a learner
  // >= M or with leave <= join or overlapping windows of one learner and,
  // when the layout is known, more learners than member slices or min_slices
  // above the smallest learner.
  static DecoupledDilocoConfig from_json(scenario::ObjectReader& r, const ParseContext& ctx);
};

}  // namespace goodsim::models::policy
