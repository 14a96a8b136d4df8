#include "app/commands.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <ostream>
#include <set>

#include "models/resource_estimate.h"
#include "models/runner.h"
#include "app/explain.h"
#include "app/output_dir.h"
#include "app/replicate.h"
#include "app/run_progress.h"
#include "app/scenario_source.h"
#include "app/sweep/task_pool.h"
#include "app/table.h"
#include "sim/output/event_log.h"
#include "sim/output/summary.h"
#include "sim/scenario/error.h"
#include "sim/scenario/units.h"

namespace goodsim::app {
namespace {

std::string comparison_table(const output::RunResult& run) {
  std::vector<std::string> header = {"policy",   "type",    "goodput",  "ettr",  "uptime",
                                     "downtime", "outages", "failures", "tokens"};
  const bool loss = std::any_of(run.policies.begin(), run.policies.end(),
                                [](const output::PolicyResult& p) { return p.final_loss; });
  const bool target = std::any_of(run.policies.begin(), run.policies.end(),
                                  [](const output::PolicyResult& p) { return p.time_to_target_s; });
  const bool cost = std::any_of(run.policies.begin(), run.policies.end(),
                                [](const output::PolicyResult& p) { return p.cost.has_value(); });
  if (loss) header.push_back("final loss");
  if (target) header.push_back("to target");
  if (cost) header.insert(header.end(), {"cost", "per 1e9 tokens"});
  Table t(header);
  for (const output::PolicyResult& p : run.policies) {
    std::vector<std::string> row = {
        p.name, p.type, fmt::format("{:.4f}", p.goodput), fmt::format("{:.4f}", p.ettr),
        fmt::format("{:.4f}", p.uptime),
        short_duration(p.downtime_s), fmt::format("{}", p.outages), fmt::format("{}", p.failures),
        fmt::format("{:.4g}", p.tokens)};
    if (loss) row.push_back(p.final_loss ? fmt::format("{:.4f}", *p.final_loss) : "-");
    if (target) row.push_back(p.time_to_target_s ? short_duration(*p.time_to_target_s) : "never");
    if (cost) {
      row.push_back(p.cost ? fmt::format("{:.4g} {}", p.cost->total, p.cost->currency) : "-");
      row.push_back(p.cost && p.cost->per_billion_tokens
                        ? fmt::format("{:.4g}", *p.cost->per_billion_tokens) : "-");
    }
    t.add_row(std::move(row));
  }
  return t.render();
}

// What each policy's simulation cost: events, wall-clock time, events/s.
std::string cost_table(const output::RunResult& run) {
  Table t({"policy", "events", "wall", "events/s"});
  for (const output::PolicyResult& p : run.policies) {
    const double rate = p.wall_s > 0 ? static_cast<double>(p.events) / p.wall_s : 0.0;
    t.add_row({p.name, fmt::format("{}", p.events), fmt::format("{:.3f}s", p.wall_s),
               fmt::format("{:.0f}", rate)});
  }
  return t.render();
}

// --max-output in bytes (default output::EventLog::kDefaultMaxBytes).
uint64_t max_output_bytes(const RunOptions& o) {
  if (!o.max_output) return output::EventLog::kDefaultMaxBytes;
  double bytes = 0;
  try {
    bytes = scenario::parse_bytes(*o.max_output);
  } catch (const std::invalid_argument& e) {
    throw scenario::ScenarioError("--max-output", "", e.what());
  }
  if (!(bytes >= 1024) || !(bytes < 1e18)) {
    throw scenario::ScenarioError("--max-output", "", fmt::format("expected a size of at least "
                                                                  "1KiB, got \"{}\"",
                                                                  *o.max_output));
  }
  return static_cast<uint64_t>(bytes);
}

// Policies run at once: --jobs (default: the cores), at most one per policy, and no more
// than --max-memory holds (each run in parallel adds its dense tables).
unsigned policy_jobs(const RunOptions& o, const models::PreparedScenario& prepared,
                     const models::ResourceEstimate& estimate,
                     const models::ResourceLimits& limits) {
  unsigned jobs = std::min<size_t>(o.jobs.value_or(sweep::TaskPool::default_threads()),
                                   prepared.policies.size());
  while (jobs > 1 && !(estimate.bytes + (jobs - 1) * estimate.run_bytes <= limits.max_bytes)) {
    --jobs;
  }
  return std::max(jobs, 1u);
}

}  // namespace

int run_command(const RunOptions& options, std::ostream& out, std::ostream& err) {
  if (options.seeds.value_or(1) > 1) return run_replications(options, out, err);
  const ScenarioSource src = load_scenario(options.scenario, options.sets, options.seed);
  const models::Registry registry = models::builtin_registry();
  const models::ResourceLimits limits = resolve_limits(options.limits);
  models::PreparedScenario prepared = prepare_source(src, registry);
  const models::ResourceEstimate estimate = models::estimate_resources(prepared);
  models::enforce_limits(prepared, estimate, limits);
  const unsigned jobs = policy_jobs(options, prepared, estimate, limits);
  const scenario::Scenario& s = prepared.scenario;
  const std::filesystem::path dir = options.out_dir ? *options.out_dir : "out/" + s.name;
  std::filesystem::create_directories(dir);
  std::unique_ptr<output::EventLog> events;
  if (options.events || s.outputs.events) {
    events = std::make_unique<output::EventLog>(dir / "events.jsonl", max_output_bytes(options));
  }
  std::unique_ptr<output::TraceWriter> trace;
  if (options.trace) {
    trace = std::make_unique<output::TraceWriter>(dir / "trace.json.gz",
                                                  models::trace_options(prepared));
  }
  RunProgressLine progress(err, !options.quiet && RunProgressLine::stderr_is_terminal(),
                           prepared.policies.size());
  output::RunResult run = models::run_scenario(prepared, s.seed, events.get(), trace.get(),
                                               progress.callback(), jobs);
  progress.clear();
  run.sets = src.sets;
  const auto rewritten = [&](const std::string& name) {
    return name == "summary.json" || name == "timeseries.csv" ||
           (events && name == "events.jsonl") || (trace && name == "trace.json.gz");
  };
  const std::set<std::string> removed = clear_previous_run(dir, rewritten);
  if (events) events->commit();
  if (trace) trace->commit();
  output::write_run_outputs(run, dir);
  note_removed(err, dir, removed, rewritten);
  if (events && events->truncated()) {
    err << fmt::format("warning: {} stopped at --max-output {} ({} events left out); its last "
                       "line says {{\"truncated\": true}}\n",
                       (dir / "events.jsonl").string(),
                       scenario::format_bytes(static_cast<double>(events->max_bytes())),
                       events->dropped());
  }
  if (!options.quiet) {
    out << fmt::format("goodsim {}: scenario \"{}\", seed {}, {} chips, horizon {}\n\n",
                       run.version, run.scenario, run.seed, run.chips,
                       scenario::format_duration(s.horizon));
    out << comparison_table(run) << "\n";
    out << why_block(output::summary_json(run), (dir / "summary.json").string()) << "\n";
    out << fmt::format("wrote {}/summary.json, {}/timeseries.csv{}{}\n", dir.string(),
                       dir.string(), events ? ", " + (dir / "events.jsonl").string() : "",
                       trace ? ", " + (dir / "trace.json.gz").string() : "");
  }
  if (options.verbose) out << (options.quiet ? "" : "\n") << cost_table(run);
  return 0;
}

void print_errors(std::ostream& err, const scenario::ScenarioError& e) {
  for (const std::string& line : e.lines()) err << "error: " << line << "\n";
}

int validate_command(const std::vector<std::string>& files, const std::vector<std::string>& sets,
                     const LimitOptions& limit_options, std::ostream& out, std::ostream& err) {
  const models::Registry registry = models::builtin_registry();
  const models::ResourceLimits limits = resolve_limits(limit_options);
  int code = 0;
  for (const std::string& f : files) {
    try {
      const ScenarioSource src = load_scenario(f, sets, std::nullopt);
      models::PreparedScenario p = prepare_source(src, registry);
      models::enforce_limits(p, models::estimate_resources(p), limits);
      // Measured only once the modelled memory fits: a pilot allocates one run's tables.
      const models::ResourceEstimate estimate =
          models::measure_events(p, models::estimate_resources(p));
      models::enforce_limits(p, estimate, limits);
      out << fmt::format("ok: {} ({} chips, {} policies, horizon {}; {})\n", f, p.layout.chips(),
                         p.policies.size(), scenario::format_duration(p.scenario.horizon),
                         models::describe_estimate(estimate));
    } catch (const scenario::ScenarioError& e) {
      print_errors(err, e);
      code = 2;
    }
  }
  return code;
}

}  // namespace goodsim::app
