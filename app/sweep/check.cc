#include "app/sweep/check.h"

#include <fmt/format.h>

#include <filesystem>
#include <mutex>
#include <ostream>
#include <set>

#include "models/resource_estimate.h"
#include "models/runner.h"
#include "app/scenario_source.h"
#include "app/sweep/baseline.h"
#include "app/sweep/check_report.h"
#include "app/sweep/compare.h"
#include "app/sweep/csv.h"
#include "app/sweep/point_results.h"
#include "app/sweep/task_pool.h"
#include "app/table.h"
#include "sim/core/version.h"
#include "sim/output/atomic_file.h"
#include "sim/scenario/error.h"

namespace goodsim::app::sweep {
namespace {

using scenario::ScenarioError;
constexpr size_t kDefaultSeeds = 5;

struct Tolerances {
  std::optional<double> all;
  std::array<std::optional<double>, kMetricCount> per{};

  std::optional<double> get(const BaselineMetric& m) const {
    if (per[m.metric]) return per[m.metric];
    return all ? all : m.tolerance;
  }
};

size_t metric_or_fail(std::string_view name, const char* option) {
  const auto m = metric_index(name);
  if (!m) {
    throw ScenarioError(
        option, "", fmt::format("unknown metric \"{}\"; expected one of {}", name, metric_names()));
  }
  return *m;
}

Tolerances parse_tolerances(const std::vector<std::string>& args) {
  Tolerances t;
  for (const std::string& a : args) {
    const size_t eq = a.find('=');
    const std::string text = eq == std::string::npos ? a : a.substr(eq + 1);
    const auto v = parse_number(text);
    if (!v || *v < 0) {
      throw ScenarioError("--tolerance", "",
                          fmt::format("expected X or METRIC=X with X >= 0, got \"{}\"", a));
    }
    if (eq == std::string::npos)
      t.all = v;
    else
      t.per[metric_or_fail(a.substr(0, eq), "--tolerance")] = v;
  }
  return t;
}

std::vector<size_t> parse_metrics(const std::vector<std::string>& args) {
  std::set<size_t> chosen;
  for (const std::string& a : args) {
    size_t start = 0;
    while (start <= a.size()) {
      const size_t comma = std::min(a.find(',', start), a.size());
      chosen.insert(metric_or_fail(a.substr(start, comma - start), "--metric"));
      start = comma + 1;
    }
  }
  return {chosen.begin(), chosen.end()};
}

struct CheckedScenario {
  std::string file;
  models::PreparedScenario prepared;
  PointResults results;
};

std::vector<CheckedScenario> prepare_all(const CheckOptions& o, const models::Registry& registry) {
  std::vector<CheckedScenario> out;
  std::set<std::string> names;
  for (const std::string& f : o.scenarios) {
    const ScenarioSource src = load_scenario(f, o.sets, std::nullopt);
    models::PreparedScenario p = prepare_source(src, registry);
    models::enforce_limits(p, models::estimate_resources(p), {});  // as `goodsim run`
    if (!names.insert(p.scenario.name).second) {
      throw ScenarioError(f, "name",
                          fmt::format("another scenario is also named \"{}\"; the "
                                      "baseline keys scenarios by name",
                                      p.scenario.name));
    }
    const size_t policies = p.policies.size();
    out.push_back({f, std::move(p), PointResults(policies)});
  }
  return out;
}

// Every scenario and policy must match the baseline both ways.
void check_matches(const std::vector<CheckedScenario>& all, const Baseline& b,
                   const std::string& path) {
  const std::string hint = "; record it with goodsim check --update";
  for (const CheckedScenario& c : all) {
    const std::string& name = c.prepared.scenario.name;
    const BaselineScenario* bs = b.find(name);
    if (bs == nullptr)
      throw ScenarioError(path, "", fmt::format("no scenario \"{}\" ({}){}", name, c.file, hint));
    for (const models::PreparedPolicy& p : c.prepared.policies) {
      if (find_policy(*bs, p.name) == nullptr) {
        throw ScenarioError(path, name, fmt::format("no policy \"{}\"{}", p.name, hint));
      }
    }
    for (const BaselinePolicy& bp : bs->policies) {
      bool found = false;
      for (const auto& p : c.prepared.policies) found = found || p.name == bp.name;
      if (!found) {
        throw ScenarioError(
            path, name, fmt::format("policy \"{}\" is no longer in {}{}", bp.name, c.file, hint));
      }
    }
  }
}

void run_all(std::vector<CheckedScenario>& all, size_t seeds, unsigned jobs) {
  std::mutex mutex;
  TaskPool pool(jobs);
  for (CheckedScenario& c : all) {
    c.results.reserve_seeds(seeds);
    for (size_t k = 0; k < seeds; ++k) {
      pool.submit([&c, k, &mutex] {
        const uint64_t seed = c.prepared.scenario.seed + k;
        const output::RunResult run = models::run_scenario(c.prepared, seed, nullptr);
        const std::lock_guard<std::mutex> lock(mutex);
        for (size_t i = 0; i < run.policies.size(); ++i) {
          c.results.put(k, {0, seed, i, metric_values(run.policies[i]),
                            fmt::format("{:016x}", run.policies[i].fingerprint)});
        }
      });
    }
  }
  pool.wait();
}

Estimate now_estimate(const CheckedScenario& c, size_t policy, size_t metric, size_t seeds) {
  return estimate(present(c.results.metric(policy, metric, seeds)));
}

// now_k - baseline_k when the baseline has per-seed values of the same seeds.
std::optional<Estimate> paired_estimate(const CheckedScenario& c, const BaselineScenario& bs,
                                        size_t policy, const BaselineMetric& bm, size_t seeds) {
  if (bs.first_seed != c.prepared.scenario.seed || bm.values.size() != seeds) return std::nullopt;
  const auto now = c.results.metric(policy, bm.metric, seeds);
  for (const auto& v : now) {
    if (!v) return std::nullopt;
  }
  return paired_difference({bm.values.begin(), bm.values.end()}, now);
}

}  // namespace

namespace {

BaselineScenario record(const CheckedScenario& c, const BaselineScenario* old,
                        const std::vector<size_t>& chosen, size_t seeds) {
  BaselineScenario s{c.prepared.scenario.name, c.file, c.prepared.scenario.seed, {}};
  for (size_t i = 0; i < c.prepared.policies.size(); ++i) {
    const std::string& name = c.prepared.policies[i].name;
    const BaselinePolicy* prev = old ? find_policy(*old, name) : nullptr;
    std::vector<BaselineMetric> keep = prev ? prev->metrics : std::vector<BaselineMetric>{};
    std::vector<size_t> metrics = chosen;
    if (metrics.empty())
      for (const BaselineMetric& m : keep) metrics.push_back(m.metric);
    if (metrics.empty()) metrics = {kGoodput, kUptime};
    BaselinePolicy p{name, {}};
    for (size_t m : metrics) {
      const Estimate e = now_estimate(c, i, m, seeds);
      if (e.n == 0) {
        throw ScenarioError(
            "--metric", "",
            fmt::format("{} has no value in any run of {} / {}", kMetrics[m].name, s.name, name));
      }
      BaselineMetric b{m, e.mean, e.n < 2 ? 0.0 : e.sd, e.n, std::nullopt, {}};
      if (e.n == seeds) b.values = present(c.results.metric(i, m, seeds));
      for (const BaselineMetric& k : keep) {
        if (k.metric == m) b.tolerance = k.tolerance;
      }
      p.metrics.push_back(b);
    }
    s.policies.push_back(std::move(p));
  }
  return s;
}

int update_baseline(const std::vector<CheckedScenario>& all, const std::optional<Baseline>& old,
                    const CheckOptions& o, size_t seeds, std::ostream& out) {
  Baseline b;
  if (old) b = *old;
  b.version = core::kVersion;
  b.seeds = seeds;
  const std::vector<size_t> chosen = parse_metrics(o.metrics);
  Table t({"scenario", "policy", "metric", "mean", "sd", "n"});
  for (const CheckedScenario& c : all) {
    BaselineScenario s =
        record(c, old ? old->find(c.prepared.scenario.name) : nullptr, chosen, seeds);
    for (const BaselinePolicy& p : s.policies) {
      for (const BaselineMetric& m : p.metrics) {
        t.add_row({s.name, p.name, std::string(kMetrics[m.metric].name),
                   fmt::format("{:.6g}", m.mean), fmt::format("{:.3g}", m.sd),
                   fmt::format("{}", m.n)});
      }
    }
    bool replaced = false;
    for (BaselineScenario& existing : b.scenarios) {
      if (existing.name == s.name) {
        existing = s;
        replaced = true;
      }
    }
    if (!replaced) b.scenarios.push_back(std::move(s));
  }
  const std::filesystem::path path(o.baseline);
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path());
  output::write_file_atomically(path, baseline_text(b));
  out << t.render()
      << fmt::format("\nrecorded {} ({} scenario(s), {} seeds each)\n", o.baseline, all.size(),
                     seeds);
  return 0;
}

CheckReport compare_all(const std::vector<CheckedScenario>& all, const Baseline& b,
                        const CheckOptions& o, size_t seeds) {
  const Tolerances tol = parse_tolerances(o.tolerances);
  CheckReport report;
  report.seeds = seeds;
  report.baseline = o.baseline;
  for (const CheckedScenario& c : all) {
    const BaselineScenario& bs = *b.find(c.prepared.scenario.name);
    for (size_t i = 0; i < c.prepared.policies.size(); ++i) {
      const BaselinePolicy& bp = *find_policy(bs, c.prepared.policies[i].name);
      for (const BaselineMetric& bm : bp.metrics) {
        const Estimate e = now_estimate(c, i, bm.metric, seeds);
        const Verdict v = compare_metric(bm, e, kMetrics[bm.metric].better, tol.get(bm),
                                         paired_estimate(c, bs, i, bm, seeds));
        report.rows.push_back({bs.name, bp.name, bm.metric, bm.mean, e, v});
      }
    }
  }
  return report;
}

// Why the runs of `c` cannot be paired with its baseline's per-seed values,
// or nullopt when they can (or the baseline has none to pair with).
std::optional<std::string> pairing_lost(const CheckedScenario& c, const BaselineScenario& bs,
                                        size_t seeds) {
  size_t recorded = 0;
  for (const BaselinePolicy& p : bs.policies) {
    for (const BaselineMetric& m : p.metrics) recorded = std::max(recorded, m.values.size());
  }
  const uint64_t first = c.prepared.scenario.seed;
  if (recorded == 0 || !bs.first_seed) return std::nullopt;  // nothing to pair with
  if (*bs.first_seed == first && recorded == seeds) return std::nullopt;
  return fmt::format("scenario \"{}\": the baseline holds seeds {} to {}, this check runs seeds "
                     "{} to {}: the runs cannot be paired with the baseline's, so the paired "
                     "rule (which catches much smaller regressions) is lost",
                     bs.name, *bs.first_seed, *bs.first_seed + recorded - 1, first,
                     first + seeds - 1);
}

// Refuses a check that would silently lose pairing, unless --allow-unpaired
// (then every such scenario is a warning of the report).
std::vector<std::string> check_pairing(const std::vector<CheckedScenario>& all, const Baseline& b,
                                       const CheckOptions& o, size_t seeds) {
  std::vector<std::string> warnings;
  for (const CheckedScenario& c : all) {
    const auto lost = pairing_lost(c, *b.find(c.prepared.scenario.name), seeds);
    if (!lost) continue;
    if (!o.allow_unpaired) {
      throw ScenarioError("--seeds", "",
                          *lost + "; run the baseline's seeds (drop --seeds and any seed "
                                  "override), record a new baseline with --update, or pass "
                                  "--allow-unpaired to compare unpaired");
    }
    warnings.push_back(*lost + " (--allow-unpaired: compared unpaired)");
  }
  return warnings;
}

std::string render(const CheckReport& r, CheckFormat format) {
  switch (format) {
    case CheckFormat::kJson:
      return check_json(r);
    case CheckFormat::kJunit:
      return check_junit(r);
    case CheckFormat::kText:
      break;
  }
  return check_text(r);
}

}  // namespace

int check_command(const CheckOptions& options, std::ostream& out) {
  const bool exists = std::filesystem::exists(options.baseline);
  if (!exists && !options.update) {
    throw ScenarioError(options.baseline, "", "no such baseline file; record one with --update");
  }
  std::optional<Baseline> baseline;
  if (exists) baseline = read_baseline(options.baseline);
  parse_tolerances(options.tolerances);  // bad options fail before any run
  parse_metrics(options.metrics);
  const models::Registry registry = models::builtin_registry();
  std::vector<CheckedScenario> all = prepare_all(options, registry);
  if (!options.update) check_matches(all, *baseline, options.baseline);
  const size_t seeds = options.seeds.value_or(baseline ? baseline->seeds : kDefaultSeeds);
  if (seeds < 1 || seeds > 1'000'000) {
    throw ScenarioError("--seeds", "", fmt::format("expected 1 to 1000000, got {}", seeds));
  }
  const CheckFormat format = check_format(options.format);
  std::vector<std::string> warnings;
  if (!options.update) warnings = check_pairing(all, *baseline, options, seeds);
  run_all(all, seeds, options.jobs > 0 ? options.jobs : TaskPool::default_threads());
  if (options.update) return update_baseline(all, baseline, options, seeds, out);
  CheckReport report = compare_all(all, *baseline, options, seeds);
  report.warnings = std::move(warnings);
  out << render(report, format);
  return report.failed() == 0 ? 0 : 1;
}

}  // namespace goodsim::app::sweep
