// Build time and memory of a 1.5M-chip cluster: layout, health tables and a
// small WAN graph, built from a scenario document as `goodsim run` does.
#include <fmt/format.h>
#include <sys/resource.h>

#include <chrono>
#include <fstream>
#include <string>

#include "bench/bench.h"
#include "sim/cluster/cluster_state.h"
#include "sim/scenario/scenario.h"

namespace goodsim::bench {
namespace {

// Current resident set size in MiB, from /proc/self/statm.
double rss_mib() {
  std::ifstream in("/proc/self/statm");
  long pages_total = 0, pages_resident = 0;
  in >> pages_total >> pages_resident;
  return static_cast<double>(pages_resident) * 4096.0 / (1024.0 * 1024.0);
}

nlohmann::json big_cluster_doc() {
  nlohmann::json sites = nlohmann::json::array();
  nlohmann::json links = nlohmann::json::array();
  for (int i = 0; i < 8; ++i) {
    sites.push_back({{"name", fmt::format("dc{}", i)}});
    if (i > 0) links.push_back({{"from", "dc0"}, {"to", fmt::format("dc{}", i)}, {"bandwidth", "5Gbps"}});
  }
  return {{"name", "bench"}, {"horizon", "7d"},
          {"cluster", {{"chips", 1536000}, {"chips_per_host", 4}, {"hosts_per_slice", 64},
                       {"sites", sites}, {"links", links}}},
          {"job", {{"params", 1e11}, {"tokens_per_step", 1.6e7}, {"step_time", "1s"}}},
          {"policies", {{{"type", "data_parallel"}}}}};
}

}  // namespace

int cluster_build() {
  const double before = rss_mib();
  const auto start = std::chrono::steady_clock::now();
  const scenario::Scenario s = scenario::parse_scenario(big_cluster_doc(), "bench");
  const cluster::Layout layout = scenario::make_layout(s.cluster);
  const cluster::Network network = scenario::make_network(s.cluster);
  cluster::ClusterState state(layout);
  const auto t = network.transfer_time(0, 7, 1e9);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // Touch every chip once (a site-wide outage and its repair per site) so the
  // tables are resident, not just reserved.
  const auto touch_start = std::chrono::steady_clock::now();
  for (cluster::SiteId site = 0; site < layout.sites(); ++site) {
    state.fail(cluster::Domain::kSite, site, core::SimTime::zero());
    state.repair(cluster::Domain::kSite, site, core::SimTime::zero());
  }
  const double touch = std::chrono::duration<double>(std::chrono::steady_clock::now() - touch_start).count();
  const double after = rss_mib();
  struct rusage ru {};
  getrusage(RUSAGE_SELF, &ru);
  fmt::print("cluster build: {} chips, {} slices, {} sites: built in {:.4f} s; every chip failed "
             "and repaired once in {:.4f} s\n  state tables {:.2f} MiB, +{:.1f} MiB resident, "
             "process peak {:.1f} MiB{}\n",
             layout.chips(), layout.slices(), layout.sites(), secs, touch,
             static_cast<double>(state.table_bytes()) / (1024.0 * 1024.0), after - before,
             static_cast<double>(ru.ru_maxrss) / 1024.0, t ? "" : " (sites unreachable)");
  return secs < 1.0 ? 0 : 1;
}

}  // namespace goodsim::bench
