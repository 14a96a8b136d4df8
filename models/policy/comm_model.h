// Communication costs of training groups (the timing hints of the Decoupled
// DiLoCo paper, arXiv 2604.21428).
//
// - Within a site: a ring all-reduce of B bytes among R participants over a
//   per-participant bandwidth W costs 2 B (1 - 1/R) / W.
// - Across sites: each flow follows the network's minimum-latency route;
//   links are full duplex, and concurrent flows in the same direction share
//   a link equally, so a flow's rate is the minimum over its links of
//   bandwidth / flows on that link and direction (a static, conservative
//   share: no flow speeds up when another ends). A cross-site
//   all-reduce over S sites is a ring: each site sends 2 B (1 - 1/S) to the
//   next; it completes when the slowest hop does.
//
// WAN bytes (the summary's wan_bytes, docs/metrics.md "WAN traffic"): the bytes
// of every flow between two different sites, counted once per flow (not once
// per link of a multi-hop route). A cross-site ring all-reduce of B bytes over
// S sites sends S hops of 2 B (1 - 1/S): 2 B (S - 1) bytes cross site
// boundaries. Traffic inside a site is never counted.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "models/run_context.h"
#include "sim/cluster/network.h"
#include "sim/core/time.h"

namespace goodsim::models::policy {

struct Flow {
  cluster::SiteId from;
  cluster::SiteId to;
  double bytes;
};

// Ring all-reduce time within a site. Zero for fewer than 2 participants.
core::Duration ring_allreduce_time(double bytes, uint32_t participants, double bandwidth_bps);

// Completion time of each of `flows` started together, with equal link
// sharing; nullopt for a flow whose sites are not connected. Same-site flows
// take zero time (intra-site costs are modelled by ring_allreduce_time).
std::vector<std::optional<core::Duration>> concurrent_transfer_times(
    const cluster::Network& net, const std::vector<Flow>& flows);

// The ring hops of a cross-site all-reduce of `bytes` over `sites` (distinct,
// in ring order): site i sends 2 B (1 - 1/S) to site i+1 (mod S).
std::vector<Flow> ring_flows(const std::vector<cluster::SiteId>& sites, double bytes);

// The bytes of `flows` that cross a site boundary (from != to).
double wan_bytes_of(const std::vector<Flow>& flows);

// The WAN bytes of one data-parallel step (dp_step_comm) with
// `active_per_site` active slices per site: 2 B (S - 1) for the job's
// gradient bytes B over the S sites with active slices (0 for one site).
double dp_step_wan_bytes(const RunContext& ctx, const std::vector<uint32_t>& active_per_site);

// Time of a cross-site ring all-reduce; zero for one site, nullopt when some
// hop is unreachable (a partition).
std::optional<core::Duration> cross_site_allreduce_time(const cluster::Network& net,
                                                        const std::vector<cluster::SiteId>& sites,
                                                        double bytes);

// Non-overlapped communication per step of a data-parallel group with
// `active_per_site[site]` active slices in each site: the intra-site ring
// all-reduce of the job's gradient bytes among the widest site's slices, times
// (1 - comm_overlap), plus a cross-site ring all-reduce over the WAN when the
// group spans sites (never overlapped). An unreachable site (a partition)
// stalls the group: the WAN term is then ten years. With job.layers the
// intra-site and WAN terms become each layer's reduce in the layer-level step
// model (layer_step_model.h) and only what the backward pass cannot hide
// counts (ctx.layer_model caches it; without one it is computed afresh).
core::Duration dp_step_comm(const RunContext& ctx, const std::vector<uint32_t>& active_per_site);

}  // namespace goodsim::models::policy
