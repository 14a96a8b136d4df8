// The static plan of a diloco run, and the costs of its communication: its
// config, which slices each learner trains on, which inner steps are sync
// points, and how long an outer all-reduce or a model pull takes.
//
// Kept apart from the policy (diloco.h) so the arithmetic can be checked by
// hand in tests and reused by other DiLoCo-style policies.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "models/parse_context.h"
#include "models/policy/elastic_group.h"
#include "models/policy/fragment_transfer.h"
#include "models/run_context.h"
#include "sim/cluster/layout.h"
#include "sim/core/time.h"
#include "sim/scenario/reader.h"

namespace goodsim::models::policy {

enum class LearnerPlacement : uint8_t { kContiguous, kPerSite };

// The parameters of a diloco policy (see diloco.h and docs/diloco.md).
struct DilocoConfig {
  uint32_t learners = 2;  // M; 0 with per_site: one per site
  LearnerPlacement placement = LearnerPlacement::kContiguous;
  uint64_t inner_steps = 500;  // H
  uint32_t fragments = 1;      // P (streaming DiLoCo when > 1)
  uint64_t overlap_steps = 0;  // tau
  bool drop_failed = false;
  ElasticSpec elastic;
  FragmentTransfer transfer;  // layers per fragment, bits per value

  // Rejects (when the layout is known): more learners than member slices,
  // per_site with learners != sites or a site without member slices,
  // fragments > inner_steps, overlap_steps >= inner_steps, min_slices above
  // the smallest learner.
  static DilocoConfig from_json(scenario::ObjectReader& r, const ParseContext& ctx);
};

// Slices [first, end) of one learner.
struct SliceRange {
  cluster::SliceId first = 0;
  cluster::SliceId end = 0;
  uint32_t size() const { return end - first; }
};

// The learners' slice ranges over the job's member slices
// [0, slices - spare_slices), in slice order:
// - kContiguous: `learners` near-equal contiguous shares (the first
//   members % learners learners get one slice more);
// - kPerSite: learner k gets the member slices of site k (`learners` must be
//   the site count). A range may be empty when the spare slices cover a whole
//   site; callers reject that (see DilocoConfig::from_json).
// REQUIRES: learners >= 1; kContiguous: learners <= member slices;
// kPerSite: learners == layout.sites().
std::vector<SliceRange> place_learners(const cluster::Layout& layout, uint32_t learners,
                                       LearnerPlacement placement);

// The sync points of (streaming) DiLoCo. With H inner steps and P fragments,
// fragment p is synchronised at the inner steps t > 0 with
// t mod H == floor(p H / P). Sync points are numbered from 0 in step order,
// so with P = 1 sync i is at step (i + 1) H, and with P = 4, H = 8 the syncs
// are at steps 2 (fragment 1), 4 (2), 6 (3), 8 (0), 10 (1), ...
// Invariant: 1 <= P <= H, so the offsets are distinct and steps increase.
class SyncSchedule {
 public:
  // REQUIRES: 1 <= fragments <= inner_steps.
  SyncSchedule(uint64_t inner_steps, uint32_t fragments);

  uint64_t step(uint64_t sync) const;      // the inner step of sync point `sync`
  uint32_t fragment(uint64_t sync) const;  // the fragment it synchronises
  uint64_t inner_steps() const { return inner_steps_; }
  uint32_t fragments() const { return fragments_; }

 private:
  uint64_t offset(uint32_t fragment) const { return fragment * inner_steps_ / fragments_; }

  uint64_t inner_steps_;
  uint32_t fragments_;
};

// Time of an outer all-reduce of `bytes` among learners whose home sites are
// `sites` (one entry per learner, in ring order). It is a ring over the
// learners: each hop carries 2 bytes (1 - 1/R) for R learners; a hop between
// two learners of one site runs at job.intra_site_bps, a hop between sites is
// a WAN flow, and all WAN hops run at once, sharing links
// (concurrent_transfer_times). The all-reduce ends when its slowest hop does.
// With every learner on one site this is ring_allreduce_time(bytes, R,
// intra_site_bps); with one learner per site, cross_site_allreduce_time().
// Zero for fewer than two learners; nullopt when a WAN hop is unreachable.
// Its WAN bytes: the hops between sites, wan_bytes_of(ring_flows(sites, bytes)).
std::optional<core::Duration> outer_allreduce_time(const RunContext& ctx,
                                                   const std::vector<cluster::SiteId>& sites,
                                                   double bytes);

// The part of an outer exchange of one fragment that stalls the learners,
// its all-reduce taking `t` (outer_allreduce_time, of which `latency` is the
// zero-byte time) and its result needed `tau` steps after the next one.
// With job.layers (`layers`: the fragment's layers, non-empty) each layer's
// outer gradients leave when that layer's backward for weights of the sync
// step ends and gate only that layer's next forward: the layer DAG
// (LayerStepModel::exchange_delay; ctx.layer_model, or one built here).
// Without job.layers the exchange is one block after the sync step:
// max(0, t - tau x job.step_time).
core::Duration exchange_stall(const RunContext& ctx, const std::vector<uint32_t>& layers,
                              core::Duration t, core::Duration latency, uint64_t tau);

// Time to copy `bytes` (the model) from a learner at site `from` to one at
// `to`: bytes x 8 / job.intra_site_bps within a site, the WAN transfer time
// (route latency + bytes x 8 / bottleneck, alone on the network) otherwise;
// nullopt when unreachable.
std::optional<core::Duration> model_pull_time(const RunContext& ctx, cluster::SiteId from,
                                              cluster::SiteId to, double bytes);

}  // namespace goodsim::models::policy
