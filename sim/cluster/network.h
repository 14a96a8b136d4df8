// The wide-area network between sites (datacenters) of a simulated cluster.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/time.h"

namespace goodsim::cluster {

using SiteId = uint32_t;  // dense, 0..site_count()-1, in order of add_site()
using LinkId = uint32_t;  // dense, 0..link_count()-1, in order of add_link()

// A path between two sites as chosen by Network. Units: latency is one-way
// simulated time, bandwidth is bits per second.
//
// - links: the WAN links in travel order from the source to the destination.
// - latency: sum of the links' one-way latencies (saturates at Duration::max()).
// - bottleneck_bps: the smallest bandwidth on the path.
// - reachable: false when no usable path exists; then links is empty,
//   latency is Duration::max() and bottleneck_bps is 0.
// The route from a site to itself is reachable, has no links, zero latency and
// an infinite bottleneck (intra-site transfers are modelled elsewhere).
struct Route {
  std::vector<LinkId> links;
  core::Duration latency = core::Duration::max();
  double bottleneck_bps = 0.0;
  bool reachable = false;
};

// Network: sites are the vertices of an undirected graph (Boost.Graph inside
// the implementation; no Boost type appears here), WAN links its edges, each
// with a bandwidth in bits/s and a one-way latency.
//
// Routing. The route between two sites minimises total latency (Dijkstra on
// latency). Ties are broken deterministically, depending only on the topology,
// the link ids and the link/partition state, never on memory or hash order:
//   1. lower total latency;
//   2. then higher bottleneck bandwidth;
//   3. then the routes from one source form a tree: the route to a site is the
//      route to its parent site plus one link, where the parent link is chosen
//      among the links that complete an optimal (latency, bottleneck) route
//      from an optimally-routed neighbour: the one whose neighbour is fewest
//      tree hops from the source, then the lowest LinkId.
// A route A->B is the reverse of B->A whenever (1) and (2) leave no tie.
// Routes are computed lazily, per source, on first use, and cached; the cache
// is dropped whenever the topology or the usable set of links changes.
//
// Link state. A link is usable for routing iff it is up and neither endpoint
// site is partitioned. Link up/down is a plain flag (set_link_up(l, false)
// twice then true once brings it up). Partition state of a site is a count:
// each set_site_partitioned(s, true) must be matched by one
// set_site_partitioned(s, false), so overlapping partitions of the same site
// (e.g. two chaos events) each need their own end.
//
// Parallel links between the same two sites are allowed (e.g. redundant
// fibres); they are independent: a route uses exactly one of them and their
// bandwidths are not aggregated.
//
// Transfers. transfer_time(from, to, bytes) = route latency + bytes * 8 /
// route bottleneck, rounded to the nearest ns and saturated at Duration::max().
// This is the time of one transfer alone on an idle network; sharing of link
// bandwidth among concurrent transfers is left to the caller, using route().
//
// Errors: bad arguments (unknown ids, duplicate or empty names, non-positive
// or non-finite bandwidth, negative latency, unmatched partition end) throw
// std::invalid_argument / std::out_of_range / std::logic_error with a precise
// message; the object is unchanged after a throw.
//
// Ownership and threading: a Network owns all its state (pimpl); copies are
// deep and independent. const member functions fill the route cache, so one
// Network must not be used from several threads at once without external
// locking (each Simulation owns its own Network). A moved-from Network may
// only be destroyed or assigned to.
class Network {
 public:
  Network();
  ~Network();
  Network(const Network& other);
  Network& operator=(const Network& other);
  Network(Network&& other) noexcept;
  Network& operator=(Network&& other) noexcept;

  // --- topology -----------------------------------------------------------

  // Adds a site and returns its id (== previous site_count()).
  // REQUIRES: name non-empty and not already used by another site.
  SiteId add_site(std::string name);

  // Adds an undirected link between a and b and returns its id (== previous
  // link_count()). The link starts up.
  // REQUIRES: a, b valid and a != b; bandwidth_bps finite and > 0;
  // latency >= 0.
  LinkId add_link(SiteId a, SiteId b, double bandwidth_bps, core::Duration latency);

  size_t site_count() const;
  // REQUIRES: site valid.
  const std::string& site_name(SiteId site) const;
  std::optional<SiteId> find_site(const std::string& name) const;
  // Links touching the site, in increasing LinkId order. REQUIRES: site valid.
  const std::vector<LinkId>& site_links(SiteId site) const;

  size_t link_count() const;
  // Endpoints in the order given to add_link. REQUIRES: link valid (all below).
  SiteId link_a(LinkId link) const;
  SiteId link_b(LinkId link) const;
  double link_bandwidth_bps(LinkId link) const;
  core::Duration link_latency(LinkId link) const;

  // --- link and site state ------------------------------------------------

  // Sets the link's up/down flag (idempotent). REQUIRES: link valid.
  void set_link_up(LinkId link, bool up);
  bool link_up(LinkId link) const;

  // partitioned == true starts one more partition of the site, false ends one.
  // While at least one is active, all links of the site are unusable.
  // REQUIRES: site valid; partitioned == false only while a partition is active.
  void set_site_partitioned(SiteId site, bool partitioned);
  bool site_partitioned(SiteId site) const;
  int partition_count(SiteId site) const;

  // Up and neither endpoint partitioned. REQUIRES: link valid.
  bool link_usable(LinkId link) const;

  // --- routing ------------------------------------------------------------

  // The chosen route (see the class comment). The reference stays valid until
  // the next non-const call on this Network. REQUIRES: from, to valid.
  const Route& route(SiteId from, SiteId to) const;

  // Time for `bytes` to go from one site to another over the route, or
  // std::nullopt when `to` is unreachable from `from`. Zero for from == to.
  // REQUIRES: from, to valid; bytes finite and >= 0.
  std::optional<core::Duration> transfer_time(SiteId from, SiteId to, double bytes) const;

 private:
  struct Impl;
  void check_site(SiteId site, const char* what) const;
  void check_link(LinkId link, const char* what) const;
  void invalidate_routes();

  std::unique_ptr<Impl> impl_;
};

}  // namespace goodsim::cluster
