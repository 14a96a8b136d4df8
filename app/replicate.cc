#include "app/replicate.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <ostream>

#include "app/output_dir.h"
#include "app/scenario_source.h"
#include "app/sweep/stats.h"
#include "app/sweep/task_pool.h"
#include "app/table.h"
#include "models/resource_estimate.h"
#include "models/runner.h"
#include "sim/output/atomic_file.h"
#include "sim/output/summary.h"
#include "sim/scenario/error.h"
#include "sim/scenario/scenario.h"
#include "sim/scenario/units.h"

namespace goodsim::app {
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

// What the table and replications.csv need of a run once its files are written: its scalar
// metrics. The time series, causes, learners and resolved scenario stay on disk only, so
// the runs of many seeds hold a few hundred bytes each.
void keep_metrics_only(output::RunResult& r) {
  r.resolved = nullptr;
  std::vector<std::string>().swap(r.sets);
  for (output::PolicyResult& p : r.policies) {
    std::vector<output::TimeseriesRow>().swap(p.series);
    std::vector<std::pair<std::string, uint64_t>>().swap(p.failure_causes);
    std::vector<output::LearnerResult>().swap(p.learners);
    std::vector<std::pair<std::string, double>>().swap(p.badput);
    p.diagnostics = {};
  }
}

// Memory of `n` seeds run `jobs` at a time: each running seed holds a whole run (`per_run`
// bytes, the single-run estimate), each finished one its metrics.
double seeds_bytes(const models::PreparedScenario& prepared, double per_run, uint64_t n,
                   unsigned jobs) {
  const double kept = sizeof(output::RunResult) +
                      static_cast<double>(prepared.policies.size()) *
                          (sizeof(output::PolicyResult) + 128);  // + names
  return static_cast<double>(std::min<uint64_t>(jobs, n)) * per_run +
         static_cast<double>(n) * kept;
}

std::vector<output::RunResult> run_seeds(const RunOptions& options,
                                         const models::PreparedScenario& prepared,
                                         const std::vector<std::string>& sets,
                                         const std::filesystem::path& dir) {
  const uint64_t first = prepared.scenario.seed, n = *options.seeds;
  scenario::check_replication_seeds(first, n, "--seeds");
  std::vector<output::RunResult> runs(n);
  sweep::TaskPool pool(options.jobs.value_or(sweep::TaskPool::default_threads()));
  // Each finished seed keeps only its metrics (keep_metrics_only): seeds_bytes() counts it.
  for (uint64_t i = 0; i < n; ++i) {
    pool.submit([&, i] {
      runs[i] = models::run_scenario(prepared, scenario::replication_seed(first, i), nullptr);
      runs[i].sets = sets;
      output::write_run_outputs(runs[i], dir / fmt::format("seed-{}", runs[i].seed));
      keep_metrics_only(runs[i]);
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
      {"fleet_goodput", [](const output::PolicyResult& p) { return p.goodput; }},
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

int run_replications(const RunOptions& options, std::ostream& out, std::ostream& err) {
  if (options.events || options.trace) {
    throw ScenarioError("--seeds", "", "--events and --trace record a single run; drop them "
                                       "or leave out --seeds");
  }
  const ScenarioSource src = load_scenario(options.scenario, options.sets, options.seed);
  const models::Registry registry = models::builtin_registry();
  models::PreparedScenario prepared = prepare_source(src, registry);
  const models::ResourceLimits limits = resolve_limits(options.limits);
  const models::ResourceEstimate estimate = models::estimate_resources(prepared);
  models::enforce_limits(prepared, estimate, limits);
  const unsigned jobs = options.jobs.value_or(sweep::TaskPool::default_threads());
  const double bytes = seeds_bytes(prepared, estimate.bytes, *options.seeds, jobs);
  if (!(bytes <= limits.max_bytes)) {
    throw ScenarioError("--seeds", "", fmt::format(
        "{} seeds, {} at a time, would need about {} of memory, more than --max-memory {}; "
        "run fewer seeds or fewer at a time (--jobs), or raise --max-memory",
        *options.seeds, std::min<uint64_t>(jobs, *options.seeds), scenario::format_bytes(bytes),
        scenario::format_bytes(limits.max_bytes)));
  }
  const std::filesystem::path dir =
      options.out_dir ? *options.out_dir : "out/" + prepared.scenario.name;
  std::filesystem::create_directories(dir);
  // replications.csv and seed-<s>/ for the seeds of this run.
  const uint64_t first = prepared.scenario.seed, n = *options.seeds;
  const auto rewritten = [first, n](const std::string& name) {
    if (name == "replications.csv") return true;
    if (!name.starts_with("seed-")) return false;
    const std::string digits = name.substr(5);
    if (digits.empty() || digits.size() > 19 || (digits.size() > 1 && digits[0] == '0') ||
        digits.find_first_not_of("0123456789") != std::string::npos) {
      return false;
    }
    const uint64_t seed = std::stoull(digits);
    return seed >= first && seed - first < n;
  };
  note_removed(err, dir, clear_previous_run(dir, rewritten), rewritten);
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

}  // namespace goodsim::app
