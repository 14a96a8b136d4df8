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

int bandwidth_command(const BandwidthOptions& o, std::ostream& out) {
  const ScenarioSource src = load_scenario(o.scenario, o.sets, o.seed);
  const double lo = scenario::parse_bandwidth_bps(o.min);
  const double hi = scenario::parse_bandwidth_bps(o.max);
  check_options(o, src, lo, hi);
  const models::Registry registry = models::builtin_registry();
  const models::PreparedScenario base = models::prepare(src.doc, src.label, registry);
  std::vector<std::string> header = {"policy", "type", "as given"};
  for (double t : o.targets) header.push_back(fmt::format("{:g}%", t * 100));
  Table table(header);
  for (size_t i : chosen_policies(o, base)) {
    const output::PolicyResult as_given = models::run_policy(base, i, base.scenario.seed, nullptr);
    UtilizationProbe probe(src, registry, i, base.scenario.seed);
    std::vector<std::string> row = {base.policies[i].name, base.policies[i].type,
                                    fmt::format("{:.4f}", as_given.goodput)};
    for (double t : o.targets) {
      const auto x = bisect_bandwidth(std::ref(probe), t, lo, hi, o.tolerance);
      row.push_back(x ? scenario::format_bandwidth_bps(*x) : ">" + scenario::format_bandwidth_bps(hi));
    }
    table.add_row(std::move(row));
  }
  out << fmt::format("WAN bandwidth (every link) for each compute utilization (goodput); "
                     "scenario \"{}\", seed {}, bisection to {:g}%\n\n",
                     base.scenario.name, base.scenario.seed, o.tolerance * 100);
  out << table.render();
  return 0;
}

}  // namespace goodsim::app
