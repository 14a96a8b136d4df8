#include "sim/cluster/network.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>
#include <utility>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/dijkstra_shortest_paths.hpp>
#include <boost/graph/filtered_graph.hpp>
#include <boost/property_map/function_property_map.hpp>
#include <boost/property_map/property_map.hpp>

namespace goodsim::cluster {
namespace {

constexpr LinkId kNoLink = std::numeric_limits<LinkId>::max();
constexpr int64_t kMaxNs = std::numeric_limits<int64_t>::max();
constexpr double kInfBps = std::numeric_limits<double>::infinity();

struct SiteData {
  std::string name;
  std::vector<LinkId> links;  // ascending: links are appended in id order
  int partitions = 0;
};

struct LinkData {
  SiteId a = 0;
  SiteId b = 0;
  double bandwidth_bps = 0.0;
  core::Duration latency;
  bool up = true;

  SiteId other(SiteId s) const { return s == a ? b : a; }
};

// Dijkstra label of a path: (total latency, bottleneck). Ordering it
// lexicographically (lower latency, then wider bottleneck) is monotone and
// isotone under path extension, so plain Dijkstra finds the optimum.
struct PathCost {
  int64_t latency_ns;
  double bottleneck_bps;
  bool operator==(const PathCost&) const = default;
};

constexpr PathCost kUnreached{kMaxNs, 0.0};
constexpr PathCost kAtSource{0, kInfBps};

struct BetterCost {
  bool operator()(const PathCost& x, const PathCost& y) const {
    if (x.latency_ns != y.latency_ns) return x.latency_ns < y.latency_ns;
    return x.bottleneck_bps > y.bottleneck_bps;
  }
};

struct ExtendCost {
  PathCost operator()(const PathCost& path, const PathCost& link) const {
    // Saturate rather than wrap: a Duration::max() latency stays "forever".
    const int64_t lat = path.latency_ns > kMaxNs - link.latency_ns
                            ? kMaxNs
                            : path.latency_ns + link.latency_ns;
    return {lat, std::min(path.bottleneck_bps, link.bottleneck_bps)};
  }
};

struct EdgeInfo {
  LinkId link = 0;
};

using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS,
                                    boost::no_property, EdgeInfo>;
using Edge = boost::graph_traits<Graph>::edge_descriptor;

// Hides unusable links (down, or touching a partitioned site) from Dijkstra.
struct UsableEdge {
  const Graph* graph = nullptr;
  const std::vector<char>* usable = nullptr;
  bool operator()(const Edge& e) const { return (*usable)[(*graph)[e].link] != 0; }
};

PathCost link_cost(const LinkData& l) { return {l.latency.ns(), l.bandwidth_bps}; }

bool is_reached(const PathCost& c) { return c.bottleneck_bps > 0.0; }

std::vector<PathCost> shortest_labels(const Graph& graph, const std::vector<LinkData>& links,
                                      const std::vector<char>& usable, SiteId source) {
  const boost::filtered_graph<Graph, UsableEdge> view(graph, UsableEdge{&graph, &usable});
  auto weight = boost::make_function_property_map<Edge, PathCost>(
      [&graph, &links](const Edge& e) { return link_cost(links[graph[e].link]); });
  std::vector<PathCost> dist(boost::num_vertices(graph), kUnreached);
  auto dist_map =
      boost::make_iterator_property_map(dist.begin(), boost::get(boost::vertex_index, graph));
  boost::dijkstra_shortest_paths(view, source,
                                 boost::weight_map(weight)
                                     .distance_map(dist_map)
                                     .distance_compare(BetterCost{})
                                     .distance_combine(ExtendCost{})
                                     .distance_inf(kUnreached)
                                     .distance_zero(kAtSource));
  return dist;
}

// Chooses each reached site's parent link so that ties left by the labels are
// broken by topology and link ids only, not by the order Dijkstra's heap
// happened to pop equal labels. A link u->v is "tight" when extending u's
// optimal label over it gives v's optimal label; tight links may form cycles
// (zero-latency links), so parents are taken level by level from a BFS over
// tight links: fewest hops first, then the lowest LinkId.
std::vector<LinkId> route_parents(const std::vector<SiteData>& sites,
                                  const std::vector<LinkData>& links,
                                  const std::vector<char>& usable,
                                  const std::vector<PathCost>& dist, SiteId source) {
  std::vector<int> depth(sites.size(), -1);
  std::vector<LinkId> parent(sites.size(), kNoLink);
  depth[source] = 0;
  std::vector<SiteId> level{source};
  while (!level.empty()) {
    std::vector<SiteId> next;
    for (SiteId u : level) {
      for (LinkId l : sites[u].links) {
        if (!usable[l]) continue;
        const SiteId v = links[l].other(u);
        if (depth[v] != -1 && depth[v] <= depth[u]) continue;
        if (!(ExtendCost{}(dist[u], link_cost(links[l])) == dist[v])) continue;
        if (depth[v] == -1) {
          depth[v] = depth[u] + 1;
          next.push_back(v);
        }
        parent[v] = std::min(parent[v], l);
      }
    }
    level = std::move(next);
  }
  return parent;
}

}  // namespace

struct Network::Impl {
  std::vector<SiteData> sites;
  std::vector<LinkData> links;
  std::map<std::string, SiteId> by_name;  // lookup only, never iterated
  Graph graph;
  // routes[from][to]; an empty routes[from] means "not computed yet".
  std::vector<std::vector<Route>> routes;

  bool usable(LinkId l) const {
    const LinkData& d = links[l];
    return d.up && sites[d.a].partitions == 0 && sites[d.b].partitions == 0;
  }

  std::vector<Route> compute_routes(SiteId source) const;
};

std::vector<Route> Network::Impl::compute_routes(SiteId source) const {
  std::vector<char> use(links.size());
  for (LinkId l = 0; l < links.size(); ++l) use[l] = usable(l) ? 1 : 0;
  const std::vector<PathCost> dist = shortest_labels(graph, links, use, source);
  const std::vector<LinkId> parent = route_parents(sites, links, use, dist, source);

  std::vector<Route> out(sites.size());
  for (SiteId v = 0; v < sites.size(); ++v) {
    if (!is_reached(dist[v])) continue;
    Route& r = out[v];
    r.reachable = true;
    r.latency = core::Duration::nanos(dist[v].latency_ns);
    r.bottleneck_bps = dist[v].bottleneck_bps;
    for (SiteId x = v; x != source; x = links[parent[x]].other(x)) {
      if (parent[x] == kNoLink) throw std::logic_error("network: route tree is broken");
      r.links.push_back(parent[x]);
    }
    std::reverse(r.links.begin(), r.links.end());
  }
  return out;
}

// --- special members ---------------------------------------------------------

Network::Network() : impl_(std::make_unique<Impl>()) {}
Network::~Network() = default;
Network::Network(const Network& other) : impl_(std::make_unique<Impl>(*other.impl_)) {}
Network& Network::operator=(const Network& other) {
  if (this != &other) impl_ = std::make_unique<Impl>(*other.impl_);
  return *this;
}
Network::Network(Network&& other) noexcept = default;
Network& Network::operator=(Network&& other) noexcept = default;

// --- validation ------------------------------------------------------------

void Network::check_site(SiteId site, const char* what) const {
  if (site >= impl_->sites.size()) {
    throw std::out_of_range(std::string("network: ") + what + ": unknown site id " +
                            std::to_string(site) + " (have " +
                            std::to_string(impl_->sites.size()) + " sites)");
  }
}

void Network::check_link(LinkId link, const char* what) const {
  if (link >= impl_->links.size()) {
    throw std::out_of_range(std::string("network: ") + what + ": unknown link id " +
                            std::to_string(link) + " (have " +
                            std::to_string(impl_->links.size()) + " links)");
  }
}

void Network::invalidate_routes() { impl_->routes.assign(impl_->sites.size(), {}); }

// --- topology --------------------------------------------------------------

SiteId Network::add_site(std::string name) {
  if (name.empty()) throw std::invalid_argument("network: add_site: empty site name");
  if (impl_->by_name.count(name) != 0) {
    throw std::invalid_argument("network: add_site: duplicate site name '" + name + "'");
  }
  const auto id = static_cast<SiteId>(impl_->sites.size());
  impl_->by_name.emplace(name, id);
  impl_->sites.push_back(SiteData{std::move(name), {}, 0});
  boost::add_vertex(impl_->graph);
  invalidate_routes();
  return id;
}

LinkId Network::add_link(SiteId a, SiteId b, double bandwidth_bps, core::Duration latency) {
  check_site(a, "add_link");
  check_site(b, "add_link");
  if (a == b) {
    throw std::invalid_argument("network: add_link: link from site '" + site_name(a) +
                                "' to itself");
  }
  if (!std::isfinite(bandwidth_bps) || bandwidth_bps <= 0.0) {
    throw std::invalid_argument("network: add_link: bandwidth must be finite and > 0 bits/s, got " +
                                std::to_string(bandwidth_bps));
  }
  if (latency < core::Duration::zero()) {
    throw std::invalid_argument("network: add_link: negative latency " +
                                std::to_string(latency.ns()) + " ns");
  }
  const auto id = static_cast<LinkId>(impl_->links.size());
  impl_->links.push_back(LinkData{a, b, bandwidth_bps, latency, true});
  impl_->sites[a].links.push_back(id);
  impl_->sites[b].links.push_back(id);
  boost::add_edge(a, b, EdgeInfo{id}, impl_->graph);
  invalidate_routes();
  return id;
}

size_t Network::site_count() const { return impl_->sites.size(); }

const std::string& Network::site_name(SiteId site) const {
  check_site(site, "site_name");
  return impl_->sites[site].name;
}

std::optional<SiteId> Network::find_site(const std::string& name) const {
  const auto it = impl_->by_name.find(name);
  if (it == impl_->by_name.end()) return std::nullopt;
  return it->second;
}

const std::vector<LinkId>& Network::site_links(SiteId site) const {
  check_site(site, "site_links");
  return impl_->sites[site].links;
}

size_t Network::link_count() const { return impl_->links.size(); }

SiteId Network::link_a(LinkId link) const {
  check_link(link, "link_a");
  return impl_->links[link].a;
}

SiteId Network::link_b(LinkId link) const {
  check_link(link, "link_b");
  return impl_->links[link].b;
}

double Network::link_bandwidth_bps(LinkId link) const {
  check_link(link, "link_bandwidth_bps");
  return impl_->links[link].bandwidth_bps;
}

core::Duration Network::link_latency(LinkId link) const {
  check_link(link, "link_latency");
  return impl_->links[link].latency;
}

// --- state -------------------------------------------------------------------

void Network::set_link_up(LinkId link, bool up) {
  check_link(link, "set_link_up");
  if (impl_->links[link].up == up) return;
  impl_->links[link].up = up;
  invalidate_routes();
}

bool Network::link_up(LinkId link) const {
  check_link(link, "link_up");
  return impl_->links[link].up;
}

void Network::set_site_partitioned(SiteId site, bool partitioned) {
  check_site(site, "set_site_partitioned");
  int& count = impl_->sites[site].partitions;
  if (partitioned) {
    if (++count == 1) invalidate_routes();
    return;
  }
  if (count == 0) {
    throw std::logic_error("network: set_site_partitioned: site '" + impl_->sites[site].name +
                           "' has no active partition to end");
  }
  if (--count == 0) invalidate_routes();
}

bool Network::site_partitioned(SiteId site) const { return partition_count(site) > 0; }

int Network::partition_count(SiteId site) const {
  check_site(site, "partition_count");
  return impl_->sites[site].partitions;
}

bool Network::link_usable(LinkId link) const {
  check_link(link, "link_usable");
  return impl_->usable(link);
}

// --- routing -------------------------------------------------------------

const Route& Network::route(SiteId from, SiteId to) const {
  check_site(from, "route");
  check_site(to, "route");
  std::vector<Route>& row = impl_->routes[from];
  if (row.empty()) row = impl_->compute_routes(from);
  return row[to];
}

std::optional<core::Duration> Network::transfer_time(SiteId from, SiteId to,
                                                     double bytes) const {
  check_site(from, "transfer_time");
  check_site(to, "transfer_time");
  if (!std::isfinite(bytes) || bytes < 0.0) {
    throw std::invalid_argument("network: transfer_time: bytes must be finite and >= 0, got " +
                                std::to_string(bytes));
  }
  if (from == to) return core::Duration::zero();
  const Route& r = route(from, to);
  if (!r.reachable) return std::nullopt;
  const core::Duration serial = core::Duration::from_seconds(bytes * 8.0 / r.bottleneck_bps);
  if (r.latency > core::Duration::max() - serial) return core::Duration::max();
  return r.latency + serial;
}

}  // namespace goodsim::cluster
