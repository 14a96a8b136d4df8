#include "app/bandwidth.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <ostream>

#include "app/scenario_source.h"
#include "app/table.h"
#include "models/runner.h"
#include "sim/scenario/error.h"
#include "sim/scenario/units.h"

namespace goodsim::app {
namespace {

// One policy's utilization as a function of the WAN bandwidth, memoized.
class UtilizationProbe {
 public:
  UtilizationProbe(const ScenarioSource& src, const models::Registry& registry, size_t policy,
                   uint64_t seed)
      : src_(src), registry_(registry), policy_(policy), seed_(seed) {}

  double operator()(double bps) {
    if (auto it = seen_.find(bps); it != seen_.end()) return it->second;
    nlohmann::json doc = src_.doc;
    for (nlohmann::json& link : doc["cluster"]["links"]) link["bandwidth"] = bps;
    const models::PreparedScenario prepared = models::prepare(doc, src_.label, registry_);
    const double u = models::run_policy(prepared, policy_, seed_, nullptr).goodput;
    seen_.emplace(bps, u);
    return u;
  }

 private:
  const ScenarioSource& src_;
  const models::Registry& registry_;
  size_t policy_;
  uint64_t seed_;
  std::map<double, double> seen_;
};

void check_options(const BandwidthOptions& o, const ScenarioSource& src, double lo, double hi) {
  const auto bad = [&](const std::string& what) {
    throw scenario::ScenarioError("goodsim bandwidth", "", what);
  };
  if (o.targets.empty()) bad("give at least one --target");
  for (double t : o.targets) {
    if (!(t > 0 && t < 1)) bad(fmt::format("--target {} is not a utilization in (0, 1)", t));
  }
  if (!(lo > 0 && lo < hi)) bad("--min must be positive and below --max");
  if (!(o.tolerance > 0)) bad("--tolerance must be positive");
  if (o.grid != "reference" && o.grid != "none") {
    bad("--grid must be \"reference\" or \"none\", got \"" + o.grid + "\"");
  }
  const nlohmann::json* links = nullptr;
  if (src.doc.contains("cluster") && src.doc["cluster"].contains("links")) {
    links = &src.doc["cluster"]["links"];
  }
  if (links == nullptr || !links->is_array() || links->empty()) {
    throw scenario::ScenarioError(src.label, "cluster.links",
                                  "goodsim bandwidth needs a scenario with WAN links");
  }
}

// Indices of the policies to study, in scenario order.
std::vector<size_t> chosen_policies(const BandwidthOptions& o, const models::PreparedScenario& p) {
  std::vector<size_t> out;
  for (size_t i = 0; i < p.policies.size(); ++i) {
    const auto& names = o.policies;
    if (names.empty() || std::find(names.begin(), names.end(), p.policies[i].name) != names.end()) {
      out.push_back(i);
    }
  }
  for (const std::string& n : o.policies) {
    const bool known = std::any_of(p.policies.begin(), p.policies.end(),
                                   [&](const models::PreparedPolicy& q) { return q.name == n; });
    if (!known) throw scenario::ScenarioError("goodsim bandwidth", "", "no policy named \"" + n + "\"");
  }
  return out;
}

}  // namespace

std::optional<double> bisect_bandwidth(const std::function<double(double)>& f, double target,
                                       double lo, double hi, double tol) {
  if (f(hi) < target) return std::nullopt;
  if (f(lo) >= target) return lo;
  // Invariant: f(lo) < target <= f(hi).
  while (hi > lo * (1 + tol)) {
    const double mid = std::sqrt(lo * hi);
    (f(mid) >= target ? hi : lo) = mid;
  }
  return hi;
}

std::vector<double> reference_grid_bps() {
  std::vector<double> grid;
  for (int k = 0; k < 50; ++k) grid.push_back(std::pow(10.0, -1.0 + 4.0 * k / 49.0) * 1e9);
  return grid;
}

std::optional<size_t> first_on_grid(const std::function<double(double)>& f, double target,
                                    const std::vector<double>& grid) {
  if (f(grid.back()) < target) return std::nullopt;
  size_t lo = 0;  // invariant: the answer lies in [lo, hi]
  size_t hi = grid.size() - 1;
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (f(grid[mid]) >= target) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return hi;
}

namespace {

std::vector<std::string> header_for(const BandwidthOptions& o, const std::string& third) {
  std::vector<std::string> header = {"policy", "type", third};
  for (double t : o.targets) header.push_back(fmt::format("{:g}%", t * 100));
  return header;
}

std::string grid_cell(const std::optional<size_t>& k, const std::vector<double>& grid) {
  if (!k) return fmt::format(">{:.1f}", grid.back() / 1e9);
  if (*k == 0) return fmt::format("<={:.1f}", grid.front() / 1e9);
  return fmt::format("{:.1f}", grid[*k] / 1e9);
}

}  // namespace

int bandwidth_command(const BandwidthOptions& o, std::ostream& out) {
  const ScenarioSource src = load_scenario(o.scenario, o.sets, o.seed);
  const double lo = scenario::parse_bandwidth_bps(o.min);
  const double hi = scenario::parse_bandwidth_bps(o.max);
  check_options(o, src, lo, hi);
  const models::Registry registry = models::builtin_registry();
  const models::PreparedScenario base = models::prepare(src.doc, src.label, registry);
  const std::vector<double> grid = reference_grid_bps();
  Table table(header_for(o, "as given"));
  Table on_grid(header_for(o, "grid"));
  for (size_t i : chosen_policies(o, base)) {
    const output::PolicyResult as_given = models::run_policy(base, i, base.scenario.seed, nullptr);
    UtilizationProbe probe(src, registry, i, base.scenario.seed);
    const std::string& name = base.policies[i].name;
    const std::string& type = base.policies[i].type;
    std::vector<std::string> row = {name, type, fmt::format("{:.4f}", as_given.goodput)};
    std::vector<std::string> grid_row = {name, type, "Gbps"};
    for (double t : o.targets) {
      const auto x = bisect_bandwidth(std::ref(probe), t, lo, hi, o.tolerance);
      row.push_back(fmt::format("{}{}", x ? "" : ">", scenario::format_bandwidth_bps(x.value_or(hi))));
      if (o.grid == "reference") grid_row.push_back(grid_cell(first_on_grid(std::ref(probe), t, grid), grid));
    }
    table.add_row(std::move(row));
    if (o.grid == "reference") on_grid.add_row(std::move(grid_row));
  }
  out << fmt::format("WAN bandwidth (every link) for each compute utilization (goodput); "
                     "scenario \"{}\", seed {}, bisection to {:g}%\n\n",
                     base.scenario.name, base.scenario.seed, o.tolerance * 100);
  out << table.render();
  if (o.grid == "reference") {
    out << "\nOn the reference grid (10^(-1 + 4k/49) Gbps, k = 0..49): the smallest grid "
           "bandwidth reaching each utilization, in Gbps\n\n";
    out << on_grid.render();
  }
  return 0;
}

}  // namespace goodsim::app
