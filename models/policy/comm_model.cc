#include "models/policy/comm_model.h"

#include <algorithm>
#include <map>

#include "models/policy/layer_step_model.h"

namespace goodsim::models::policy {
namespace {

// A transfer that would take longer (e.g. over a link of a few bits/s) counts as
// taking this long: as good as never for any horizon, and a step's sum of a few such
// times stays far inside the range of int64 nanoseconds.
const core::Duration kLongestTransfer = core::Duration::days(3650);

core::Duration transfer_time(double bits, double bandwidth_bps) {
  return std::min(core::Duration::from_seconds(bits / bandwidth_bps), kLongestTransfer);
}

}  // namespace

core::Duration ring_allreduce_time(double bytes, uint32_t participants, double bandwidth_bps) {
  if (participants < 2 || bytes <= 0) return core::Duration::zero();
  const double r = participants;
  return transfer_time(2.0 * bytes * 8.0 * (1.0 - 1.0 / r), bandwidth_bps);
}

namespace {

// The (link, direction) keys a route uses, in travel order from `from`.
std::vector<uint64_t> directed_links(const cluster::Network& net, cluster::SiteId from,
                                     const cluster::Route& route) {
  std::vector<uint64_t> keys;
  cluster::SiteId at = from;
  for (cluster::LinkId l : route.links) {
    const bool forward = net.link_a(l) == at;
    keys.push_back(uint64_t{l} * 2 + (forward ? 0 : 1));
    at = forward ? net.link_b(l) : net.link_a(l);
  }
  return keys;
}

}  // namespace

std::vector<std::optional<core::Duration>> concurrent_transfer_times(
    const cluster::Network& net, const std::vector<Flow>& flows) {
  std::map<uint64_t, uint32_t> load;  // per link and direction: links are full duplex
  for (const Flow& f : flows) {
    if (f.from == f.to) continue;
    for (uint64_t k : directed_links(net, f.from, net.route(f.from, f.to))) ++load[k];
  }
  std::vector<std::optional<core::Duration>> out;
  out.reserve(flows.size());
  for (const Flow& f : flows) {
    if (f.from == f.to) {
      out.emplace_back(core::Duration::zero());
      continue;
    }
    const cluster::Route& route = net.route(f.from, f.to);
    if (!route.reachable) {
      out.emplace_back(std::nullopt);
      continue;
    }
    double rate = route.bottleneck_bps;
    for (uint64_t k : directed_links(net, f.from, route)) {
      rate = std::min(rate, net.link_bandwidth_bps(static_cast<cluster::LinkId>(k / 2)) / load[k]);
    }
    out.emplace_back(route.latency + transfer_time(f.bytes * 8.0, rate));
  }
  return out;
}

std::vector<Flow> ring_flows(const std::vector<cluster::SiteId>& sites, double bytes) {
  std::vector<Flow> flows;
  const size_t s = sites.size();
  if (s < 2) return flows;
  const double volume = 2.0 * bytes * (1.0 - 1.0 / static_cast<double>(s));
  for (size_t i = 0; i < s; ++i) flows.push_back({sites[i], sites[(i + 1) % s], volume});
  return flows;
}

double wan_bytes_of(const std::vector<Flow>& flows) {
  double total = 0;
  for (const Flow& f : flows) {
    if (f.from != f.to) total += f.bytes;
  }
  return total;
}

double dp_step_wan_bytes(const RunContext& ctx, const std::vector<uint32_t>& active_per_site) {
  const auto sites = std::count_if(active_per_site.begin(), active_per_site.end(),
                                   [](uint32_t n) { return n > 0; });
  if (sites < 2) return 0;
  return 2.0 * ctx.job.gradient_bytes * static_cast<double>(sites - 1);
}

std::optional<core::Duration> cross_site_allreduce_time(const cluster::Network& net,
                                                        const std::vector<cluster::SiteId>& sites,
                                                        double bytes) {
  core::Duration worst = core::Duration::zero();
  for (const auto& t : concurrent_transfer_times(net, ring_flows(sites, bytes))) {
    if (!t) return std::nullopt;
    worst = std::max(worst, *t);
  }
  return worst;
}

core::Duration dp_step_comm(const RunContext& ctx, const std::vector<uint32_t>& active_per_site) {
  const scenario::JobSpec& job = ctx.job;
  std::vector<cluster::SiteId> sites;
  uint32_t widest = 0;
  for (cluster::SiteId s = 0; s < active_per_site.size(); ++s) {
    if (active_per_site[s] == 0) continue;
    sites.push_back(s);
    widest = std::max(widest, active_per_site[s]);
  }
  const core::Duration intra = ring_allreduce_time(job.gradient_bytes, widest, job.intra_site_bps);
  core::Duration total = core::Duration::from_seconds(intra.seconds_f() * (1.0 - job.comm_overlap));
  const auto wan = sites.size() > 1 ? cross_site_allreduce_time(ctx.network, sites, job.gradient_bytes)
                                    : std::optional(core::Duration::zero());
  if (!wan) return total + kLongestTransfer;
  if (!job.layer_params.empty()) {
    // The latency is what a zero-byte all-reduce costs; the rest occupies the WAN.
    const core::Duration latency =
        sites.size() > 1 ? cross_site_allreduce_time(ctx.network, sites, 0).value()
                         : core::Duration::zero();
    const ReduceCost cost{total, *wan - latency, latency};
    if (ctx.layer_model != nullptr) return ctx.layer_model->exposed(cost);
    return LayerStepModel(job.layer_params, job.step_time).step_time(cost) - job.step_time;
  }
  return total + *wan;
}

}  // namespace goodsim::models::policy
