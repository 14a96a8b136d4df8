// goodsim command line: parses arguments (CLI11) and dispatches to commands.
// The only place that maps errors to exit codes: 0 ok, 1 a check failed,
// 2 bad input (scenario errors, bad arguments, unwritable outputs).
#include <CLI/CLI.hpp>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <new>

#include "cli/arguments.h"
#include "app/bandwidth.h"
#include "app/calibrate/calibrate_command.h"
#include "app/commands.h"
#include "app/diff/diff.h"
#include "app/explain.h"
#include "app/mpi/sweep_entry.h"
#include "app/report_command.h"
#include "app/solve/solve.h"
#include "app/sweep/check.h"
#include "app/sweep/merge.h"
#include "app/sweep/sweep.h"
#include "app/sweep/task_pool.h"
#include "sim/core/version.h"
#include "sim/output/atomic_file.h"
#include "sim/scenario/error.h"

namespace {

using goodsim::app::BandwidthOptions;
using goodsim::app::RunOptions;
using goodsim::app::sweep::CheckOptions;
using goodsim::app::sweep::MergeOptions;
using goodsim::app::sweep::SweepOptions;

// --jobs,-j J: runs in parallel, 1 to kMaxJobs.
template <class T>
void add_jobs(CLI::App& cmd, T& jobs,
              const std::string& help = "Runs in parallel (default: number of cores)") {
  cmd.add_option("--jobs,-j", jobs, help)->check(CLI::Range(1u, goodsim::app::sweep::kMaxJobs));
}

// --seeds N: a count of at least 1.
template <class T>
void add_seeds(CLI::App& cmd, T& seeds, const std::string& help) {
  cmd.add_option("--seeds", seeds, help)->check(goodsim::cli::count_validator());
}

// --set PATH=VALUE, repeatable: one scenario override per occurrence.
void add_sets(CLI::App& cmd, std::vector<std::string>& sets, const std::string& help) {
  cmd.add_option("--set", sets, help)->allow_extra_args(false);
}

void add_limits(CLI::App& cmd, goodsim::app::LimitOptions& opt) {
  cmd.add_option("--max-memory", opt.max_memory,
                 "Refuse a scenario whose estimated memory exceeds this (default 8GiB)");
  cmd.add_option("--max-events", opt.max_events,
                 "Refuse a scenario whose estimated events exceed this, and stop any run "
                 "that reaches it (default 1e9)");
}

void add_run(CLI::App& app, RunOptions& opt) {
  CLI::App* run = app.add_subcommand("run", "Run a scenario (default: the built-in demo) and "
                                            "write summary.json and timeseries.csv");
  run->add_option("scenario", opt.scenario, "Scenario JSON file; omit for the built-in demo");
  run->add_option("--set", opt.sets, "Override a scenario key before validation, e.g. "
                                     "--set horizon=30d --set policies.0.restart_time=10m");
  run->add_option("--seed", opt.seed, "Seed for this run (overrides the scenario's seed)")
      ->check(goodsim::cli::seed_validator());
  run->add_option("--out", opt.out_dir, "Output directory (default: out/<scenario name>)");
  run->add_flag("--events", opt.events, "Also write events.jsonl (one line per event)");
  run->add_option("--max-output", opt.max_output,
                  "Cap on events.jsonl (default 1GiB); a file that reaches it ends with a "
                  "{\"truncated\": true} line");
  run->add_flag("--trace", opt.trace, "Also write trace.json.gz, a timeline for "
                                      "ui.perfetto.dev or chrome://tracing");
  run->add_flag("--quiet,-q", opt.quiet, "Do not print the comparison table");
  run->add_flag("--verbose,-v", opt.verbose, "Also print, per policy, the events executed, the "
                                             "wall-clock time and the events per second");
  add_seeds(*run, opt.seeds, "Replications: the seed and the next N-1, each written "
                             "to DIR/seed-<seed>/; the table shows means and 95% CIs");
  add_jobs(*run, opt.jobs, "Policies simulated in parallel, or with --seeds the "
                           "replications (default: cores, as many as "
                           "--max-memory holds); outputs do not depend on it");
  add_limits(*run, opt.limits);
}

void add_sweep(CLI::App& app, SweepOptions& opt) {
  CLI::App* s = app.add_subcommand("sweep", "Run a scenario over a grid of values x seeds; write "
                                            "results.csv, summary.csv and paired.csv");
  s->add_option("scenario", opt.scenario, "Scenario JSON file")->required();
  s->add_option("--vary", opt.vary, "PATH=v1,v2,... | PATH=lin:A..B:N | PATH=log:A..B:N[:int]; "
                                    "one grid axis per --vary (first = outermost)")
      ->allow_extra_args(false);
  add_sets(*s, opt.sets, "Override a scenario key before --vary (as in run)");
  add_seeds(*s, opt.seeds, "Seeds per grid point: the scenario's seed and the next "
                           "N-1 (default 10; initial count with --ci-target)");
  add_jobs(*s, opt.jobs);
  s->add_option("--out", opt.out_dir, "Output directory (default: out/<scenario name>-sweep)");
  s->add_option("--ci-target", opt.ci_target, "Add seeds until every policy's goodput 95% CI "
                                              "half-width is below this, per grid point");
  s->add_option("--max-seeds", opt.max_seeds,
                "Seed cap for --ci-target (default max(100, --seeds))");
  s->add_flag("--resume", opt.resume, "Finish an interrupted sweep in --out (same definition)");
  s->add_flag("--quiet,-q", opt.quiet, "No progress and no table");
  s->add_option("--shard", opt.shard, "Run only shard i of n (i/n, from 0) of the runs, for job "
                                      "arrays; combine the shards with sweep-merge");
}

void add_solve(CLI::App& app, goodsim::app::solve::SolveOptions& opt) {
  CLI::App* s = app.add_subcommand("solve", "Find the smallest (or largest) value of a scenario "
                                            "key that meets requirements on a policy's metrics");
  s->add_option("scenario", opt.scenario, "Scenario JSON file")->required();
  s->add_option("--policy", opt.policy, "The policy judged (optional with a single policy)");
  s->add_option("--find", opt.find, "PATH=LO..HI: the key searched and its range")->required();
  s->add_option("--require", opt.requirements, "METRIC>=X (or >, <=, <); repeatable")
      ->required()->allow_extra_args(false);
  s->add_flag("--minimize", [&opt](int64_t) { opt.maximize = false; }, "The smallest value (default)");
  s->add_flag("--maximize", opt.maximize, "The largest value");
  s->add_option("--objective", opt.objective, "Minimise (--maximize: maximise) this metric's "
                                              "mean over the values meeting the requirements");
  s->add_option("--confidence", opt.confidence, "Level of the one-sided bounds (default 0.95)");
  add_seeds(*s, opt.seeds, "Fixed seeds per value (default: --auto-seeds)");
  s->add_flag("--auto-seeds", [&opt](int64_t) { opt.seeds.reset(); },
              "Start at 8 seeds and double near the boundary up to --max-seeds (default)");
  s->add_option("--max-seeds", opt.max_seeds, "Seed budget per value (default 64)");
  add_sets(*s, opt.sets, "Override a scenario key first (as in run)");
  add_jobs(*s, opt.jobs);
  s->add_option("--out", opt.out_dir, "Output directory (default: out/<scenario name>-solve)");
  s->add_flag("--quiet,-q", opt.quiet, "No per-value progress lines");
}

void add_sweep_merge(CLI::App& app, MergeOptions& opt) {
  CLI::App* m = app.add_subcommand("sweep-merge", "Combine the shard directories of a sweep "
                                                  "(sweep --shard) into the files of the whole");
  m->add_option("dirs", opt.dirs, "Shard directories, one per shard")->required();
  m->add_option("--out", opt.out_dir, "Output directory for the merged sweep")->required();
  m->add_flag("--quiet,-q", opt.quiet, "No table");
}

void add_check(CLI::App& app, CheckOptions& opt) {
  CLI::App* c = app.add_subcommand("check", "Compare scenarios' metrics with a baseline; exit 1 "
                                            "on a regression (CI)");
  c->add_option("scenarios", opt.scenarios, "Scenario JSON files")->required();
  c->add_option("--baseline", opt.baseline, "Baseline JSON file")->required();
  add_seeds(*c, opt.seeds, "Seeds per scenario (default: the baseline's, else 5)");
  c->add_option("--tolerance", opt.tolerances, "Absolute worsening allowed: X for every metric, "
                                               "or METRIC=X (replaces the statistical rule)")
      ->allow_extra_args(false);
  c->add_option("--metric", opt.metrics, "With --update: metrics to record (default: those "
                                         "already recorded, else goodput,uptime)")
      ->allow_extra_args(false);
  add_sets(*c, opt.sets, "Override a key of every scenario (as in run)");
  add_jobs(*c, opt.jobs);
  c->add_flag("--update", opt.update, "Record the baseline (atomically) instead of checking");
  c->add_flag("--allow-unpaired", opt.allow_unpaired,
              "Compare, with a warning, when the seeds differ from the baseline's (default: "
              "refuse with exit 2, since the paired rule would be lost)");
  c->add_option("--format", opt.format, "Output: text (default), json or junit (JUnit XML)");
}

void add_bandwidth(CLI::App& app, BandwidthOptions& opt) {
  CLI::App* b = app.add_subcommand("bandwidth", "Find the WAN bandwidth each policy needs for "
                                                "given compute utilizations (bisection)");
  b->add_option("scenario", opt.scenario, "Scenario JSON file (with WAN links)")->required();
  b->add_option("--target", opt.targets, "Utilizations (goodput) to reach, e.g. "
                                         "0.5,0.8,0.9,0.95,0.99")
      ->delimiter(',')
      ->required();
  b->add_option("--min", opt.min, "Lowest bandwidth tried (default 1Mbps)");
  b->add_option("--max", opt.max, "Highest bandwidth tried (default 100Tbps)");
  b->add_option("--tolerance", opt.tolerance, "Relative precision of each answer (default 0.01)");
  b->add_option("--grid", opt.grid, "Also report each threshold on the Streaming DiLoCo "
                                    "simulator's bandwidth grid: reference (default) or none");
  b->add_option("--policy", opt.policies, "Only these policies (by name; default: all)")
      ->delimiter(',');
  b->add_option("--seed", opt.seed, "Seed (overrides the scenario's seed)")
      ->check(goodsim::cli::seed_validator());
  add_sets(*b, opt.sets, "Override a scenario key first (as in run)");
}

struct Options {
  goodsim::app::calibrate::CalibrateOptions calibrate;
  RunOptions run;
  BandwidthOptions bandwidth;
  std::vector<std::string> files, validate_sets;
  goodsim::app::LimitOptions validate_limits;
  SweepOptions sweep;
  goodsim::app::solve::SolveOptions solve;
  MergeOptions merge;
  CheckOptions check;
  std::string explain;
  std::string list_format = "text";
  std::optional<size_t> list_width;
  goodsim::app::diff::DiffOptions diff;
  goodsim::app::ReportOptions report;
};

// goodsim diff and goodsim report (app/diff/diff.h, app/report_command.h).
void add_diff_and_report(CLI::App& app, Options& opt) {
  CLI::App* d = app.add_subcommand("diff", "Compare two runs, run --seeds or sweep directories "
                                           "(or a check baseline): every metric, its change, "
                                           "95% CI and significance; exit 1 on a --fail-on rule");
  d->add_option("a", opt.diff.a, "Before: a run, run --seeds or sweep directory, or a baseline")
      ->required();
  d->add_option("b", opt.diff.b, "After: the same kinds")->required();
  d->add_option("--fail-on", opt.diff.fail_on, "METRIC<X, <=, >, >= on the change B - A, e.g. "
                                               "'goodput<-0.01'; repeatable")
      ->allow_extra_args(false);
  d->add_option("--format", opt.diff.format, "text (default), markdown, json or junit");
  d->add_option("--out", opt.diff.out_dir, "Also write diff.json and diff.md here (for report)");
  CLI::App* r = app.add_subcommand("report", "Write one self-contained HTML report (plots, "
                                             "tables) of any goodsim output directory");
  r->add_option("dir", opt.report.dir, "A run, run --seeds, sweep, calibrate, diff or solve "
                                       "output directory")->required();
  r->add_option("--out", opt.report.out, "The HTML file (default DIR/report.html)");
}

int dispatch(CLI::App& app, const Options& opt) {
  if (app.got_subcommand("sweep")) {
    return goodsim::app::mpi::sweep_entry(opt.sweep, std::cout, std::cerr);
  }
  if (app.got_subcommand("solve")) return goodsim::app::solve::solve_command(opt.solve, std::cout, std::cerr);
  if (app.got_subcommand("sweep-merge")) {
    return goodsim::app::sweep::merge_command(opt.merge, std::cout);
  }
  if (app.got_subcommand("check")) return goodsim::app::sweep::check_command(opt.check, std::cout);
  if (app.got_subcommand("run")) return goodsim::app::run_command(opt.run, std::cout, std::cerr);
  if (app.got_subcommand("explain")) return goodsim::app::explain_command(opt.explain, std::cout);
  if (app.got_subcommand("bandwidth")) {
    return goodsim::app::bandwidth_command(opt.bandwidth, std::cout);
  }
  if (app.got_subcommand("validate")) {
    return goodsim::app::validate_command(opt.files, opt.validate_sets, opt.validate_limits,
                                          std::cout, std::cerr);
  }
  if (app.got_subcommand("calibrate")) {
    return goodsim::app::calibrate::calibrate_command(opt.calibrate, std::cout, std::cerr);
  }
  if (app.got_subcommand("diff")) {
    return goodsim::app::diff::diff_command(opt.diff, std::cout, std::cerr);
  }
  if (app.got_subcommand("report")) {
    return goodsim::app::report_command(opt.report, std::cout, std::cerr);
  }
  if (app.got_subcommand("list-models")) {
    return goodsim::app::list_models_command(std::cout, opt.list_format, opt.list_width);
  }
  std::cout << app.help();
  return 0;
}

// `code`, unless what went to standard output could not all be written (a full disk,
// /dev/full): then exit 2 with a message, never 0 with output silently lost.
int checked_stdout(int code) {
  errno = 0;
  std::cout.flush();
  const bool failed = std::cout.fail() || std::fflush(stdout) != 0 || std::ferror(stdout);
  if (!failed) return code;
  std::cerr << "error: cannot write to standard output: "
            << (errno != 0 ? std::strerror(errno) : "write error") << "\n";
  return 2;
}

void add_calibrate(CLI::App& app, goodsim::app::calibrate::CalibrateOptions& opt) {
  CLI::App* c = app.add_subcommand("calibrate",
                                   "Fit scenario knobs to observed metrics "
                                   "(weighted least squares, common random numbers)");
  c->add_option("scenario", opt.scenario, "Scenario JSON file")->required();
  c->add_option("--fit", opt.fits,
                "PATH=LO..HI: a knob and its range (numbers or durations; "
                "log scale when HI >= 10 LO > 0)")
      ->allow_extra_args(false)
      ->required();
  c->add_option("--target", opt.target,
                "Observations: CSV (set,policy,metric,value,"
                "uncertainty) or JSON")
      ->required();
  add_sets(*c, opt.sets, "Override a scenario key first (as in run)");
  c->add_option("--seeds", opt.seeds,
                "Seeds per evaluation, the same for every candidate "
                "(default 4)");
  add_jobs(*c, opt.jobs);
  c->add_option("--restarts", opt.restarts, "Starts after the range's centre (default 2)");
  c->add_option("--out", opt.out_dir, "Output directory (default: out/<scenario name>-calibrate)");
  c->add_option("--choose", opt.chooses,
                "PATH=A|B|...: a choice or boolean key and its alternatives, or "
                "NAME=@a.json|@b.json: scenario fragments; every combination is fitted")
      ->allow_extra_args(false);
  c->add_option("--max-structures", opt.max_structures,
                "Most combinations of --choose alternatives (default 64)");
  c->add_option("--probe", opt.probes,
                "SET (a=1;b=2): where to simulate structures the targets cannot tell apart")
      ->allow_extra_args(false);
  c->add_flag("--quiet,-q", opt.quiet, "No progress lines");
}

}  // namespace

int main(int argc, char** argv) {
  goodsim::output::install_interrupt_cleanup();
  CLI::App app{"goodsim: discrete-event simulator of ML-training clusters under failures"};
  app.set_version_flag("--version", goodsim::core::kVersion);
  Options opt;
  add_run(app, opt.run);
  CLI::App* validate = app.add_subcommand("validate", "Check scenario files without running them");
  validate->add_option("scenarios", opt.files, "Scenario JSON files")->required();
  validate->add_option("--set", opt.validate_sets, "Override a key before validation (as in run)");
  add_limits(*validate, opt.validate_limits);
  add_sweep(app, opt.sweep);
  add_solve(app, opt.solve);
  add_sweep_merge(app, opt.merge);
  add_check(app, opt.check);
  add_bandwidth(app, opt.bandwidth);
  add_calibrate(app, opt.calibrate);
  add_diff_and_report(app, opt);
  opt.diff.argv.assign(argv, argv + argc);
  opt.diff.argv[0] = "goodsim";
  app.add_subcommand("explain", "Explain a run's figures from its summary.json: dominant "
                                "badput, slices down, spares, checkpoints, outages, warnings")
      ->add_option("run", opt.explain, "Run directory (holding summary.json) or a summary.json")
      ->required();
  CLI::App* list = app.add_subcommand("list-models", "List every built-in model with its "
                                                     "parameters and units");
  list->add_option("--format", opt.list_format, "text (default, wrapped to the terminal), "
                                                "markdown (docs/models.md) or json (a JSON "
                                                "Schema of the scenario format)");
  list->add_option("--width", opt.list_width, "Wrap text at this many columns (default: the "
                                              "terminal's width)");
  app.require_subcommand(0, 1);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    const auto unknown = argc > 1 ? goodsim::cli::unknown_command_message(
                                        argv[1], goodsim::cli::command_names(app))
                                  : std::nullopt;
    if (unknown) {
      std::cerr << "error: " << *unknown << "\n";
    } else {
      app.exit(e);
    }
    return 2;
  }
  try {
    return checked_stdout(dispatch(app, opt));
  } catch (const goodsim::scenario::ScenarioError& e) {
    goodsim::app::print_errors(std::cerr, e);
    return 2;
  } catch (const std::bad_alloc&) {
    std::cerr << "error: out of memory: the scenario needs more memory than this machine "
                 "gives; make it smaller (see \"goodsim validate\" for its estimate)\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  }
}
