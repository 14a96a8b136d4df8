#include "cli/replicate.h"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <ostream>

#include "cli/scenario_source.h"
#include "cli/sweep/stats.h"
#include "cli/sweep/task_pool.h"
#include "cli/table.h"
#include "models/resource_estimate.h"
#include "models/runner.h"
#include "sim/output/atomic_file.h"
#include "sim/output/summary.h"
#include "sim/scenario/error.h"
#include "sim/scenario/scenario.h"
#include "sim/scenario/units.h"

namespace goodsim::cli {
namespace {

using scenario::ScenarioError;

std::vector<double> values_of(const std::vector<output::RunResult>& runs, size_t policy,
                              const ReplicatedMetric& m) {
  std::vector<double> v;
  for (const output::RunResult& r : runs) v.push_back(m.get(r.policies.at(policy)));
  return v;
}

std::string number_or_empty(double x) { return std::isnan(x) ? "" : fmt::format("{}", x); }

// "0.8480 ± 0.0042"; the CI is left out when it is undefined (one run).
std::string mean_ci(const sweep::Estimate& e, int decimals) {
  const std::string mean = fmt::format("{:.{}f}", e.mean, decimals);
  return std::isnan(e.ci95) ? mean : fmt::format("{} ± {:.{}f}", mean, e.ci95, decimals);
}

std::string replication_table(const std::vector<output::RunResult>& runs) {
  Table t({"policy", "type", "goodput (95% CI)", "ETTR (95% CI)", "uptime (95% CI)",
           "outages", "failures", "tokens"});
  const std::vector<ReplicatedMetric>& metrics = replicated_metrics();
  for (size_t p = 0; p < runs.front().policies.size(); ++p) {
    auto est = [&](size_t m) { return sweep::estimate(values_of(runs, p, metrics.at(m))); };
    const output::PolicyResult& first = runs.front().policies[p];
    t.add_row({first.name, first.type, mean_ci(est(0), 4), mean_ci(est(1), 4),
               mean_ci(est(2), 4), fmt::format("{:.1f}", est(4).mean),
               fmt::format("{:.1f}", est(5).mean), fmt::format("{:.4g}", est(6).mean)});
  }
  return t.render();
}

std::vector<output::RunResult> run_seeds(const RunOptions& options,
                                         const models::PreparedScenario& prepared,
                                         const std::vector<std::string>& sets,
                                         const std::filesystem::path& dir) {
  const uint64_t first = prepared.scenario.seed, n = *options.seeds;
  scenario::check_replication_seeds(first, n, "--seeds");
  std::vector<output::RunResult> runs(n);
  sweep::TaskPool pool(options.jobs.value_or(sweep::TaskPool::default_threads()));
  for (uint64_t i = 0; i < n; ++i) {
    pool.submit([&, i] {
      runs[i] = models::run_scenario(prepared, scenario::replication_seed(first, i), nullptr);
      runs[i].sets = sets;
      output::write_run_outputs(runs[i], dir / fmt::format("seed-{}", runs[i].seed));
    });
  }
  pool.wait();
  return runs;
}

}  // namespace

const std::vector<ReplicatedMetric>& replicated_metrics() {
  static const std::vector<ReplicatedMetric> kMetrics = {
      {"goodput", [](const output::PolicyResult& p) { return p.goodput; }},
      {"ettr", [](const output::PolicyResult& p) { return p.ettr; }},
      {"uptime", [](const output::PolicyResult& p) { return p.uptime; }},
      {"downtime_s", [](const output::PolicyResult& p) { return p.downtime_s; }},
      {"outages", [](const output::PolicyResult& p) { return static_cast<double>(p.outages); }},
      {"failures", [](const output::PolicyResult& p) { return static_cast<double>(p.failures); }},
      {"tokens", [](const output::PolicyResult& p) { return p.tokens; }},
  };
  return kMetrics;
}

std::string replications_csv(const std::vector<output::RunResult>& runs) {
  std::string out = "policy,type,metric,n,mean,sd,ci95\n";
  if (runs.empty()) return out;
  for (size_t p = 0; p < runs.front().policies.size(); ++p) {
    const output::PolicyResult& first = runs.front().policies[p];
    for (const ReplicatedMetric& m : replicated_metrics()) {
      const sweep::Estimate e = sweep::estimate(values_of(runs, p, m));
      out += fmt::format("{},{},{},{},{},{},{}\n", first.name, first.type, m.name, e.n,
                         e.mean, number_or_empty(e.sd), number_or_empty(e.ci95));
    }
  }
  return out;
}

int run_replications(const RunOptions& options, std::ostream& out) {
  if (options.events || options.trace) {
    throw ScenarioError("--seeds", "", "--events and --trace record a single run; drop them "
                                       "or leave out --seeds");
  }
  const ScenarioSource src = load_scenario(options.scenario, options.sets, options.seed);
  const models::Registry registry = models::builtin_registry();
  models::PreparedScenario prepared = prepare_source(src, registry);
  models::enforce_limits(prepared, models::estimate_resources(prepared),
                         resolve_limits(options.limits));
  const std::filesystem::path dir =
      options.out_dir ? *options.out_dir : "out/" + prepared.scenario.name;
  std::filesystem::create_directories(dir);
  const std::vector<output::RunResult> runs = run_seeds(options, prepared, src.sets, dir);
  output::write_file_atomically(dir / "replications.csv", replications_csv(runs));
  if (options.quiet) return 0;
  out << fmt::format("goodsim {}: scenario \"{}\", seeds {} to {} ({} runs), {} chips, "
                     "horizon {}\n\n",
                     runs.front().version, prepared.scenario.name, runs.front().seed,
                     runs.back().seed, runs.size(), runs.front().chips,
                     scenario::format_duration(prepared.scenario.horizon));
  out << replication_table(runs) << "\n";
  out << fmt::format("wrote {}/replications.csv and {}/seed-*/summary.json\n", dir.string(),
                     dir.string());
  return 0;
}

}  // namespace goodsim::cli
