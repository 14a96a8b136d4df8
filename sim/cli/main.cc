// goodsim command line: parses arguments (CLI11) and dispatches to commands.
// The only place that maps errors to exit codes: 0 ok, 1 a check failed,
// 2 bad input (scenario errors, bad arguments, unwritable outputs).
#include <CLI/CLI.hpp>

#include <iostream>

#include "sim/cli/commands.h"
#include "sim/core/version.h"
#include "sim/scenario/error.h"

namespace {

using goodsim::cli::RunOptions;

void add_run(CLI::App& app, RunOptions& opt) {
  CLI::App* run = app.add_subcommand("run", "Run a scenario (default: the built-in demo) and "
                                            "write summary.json and timeseries.csv");
  run->add_option("scenario", opt.scenario, "Scenario JSON file; omit for the built-in demo");
  run->add_option("--set", opt.sets, "Override a scenario key before validation, e.g. "
                                     "--set horizon=30d --set policies.0.restart_time=10m");
  run->add_option("--seed", opt.seed, "Seed for this run (overrides the scenario's seed)");
  run->add_option("--out", opt.out_dir, "Output directory (default: out/<scenario name>)");
  run->add_flag("--events", opt.events, "Also write events.jsonl (one line per event)");
  run->add_flag("--quiet,-q", opt.quiet, "Do not print the comparison table");
}

int dispatch(CLI::App& app, const RunOptions& run_opt, const std::vector<std::string>& files,
             const std::vector<std::string>& validate_sets) {
  if (app.got_subcommand("run")) return goodsim::cli::run_command(run_opt, std::cout);
  if (app.got_subcommand("validate")) {
    return goodsim::cli::validate_command(files, validate_sets, std::cout, std::cerr);
  }
  if (app.got_subcommand("list-models")) return goodsim::cli::list_models_command(std::cout);
  std::cout << app.help();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"goodsim: discrete-event simulator of ML-training clusters under failures"};
  app.set_version_flag("--version", goodsim::core::kVersion);
  RunOptions run_opt;
  add_run(app, run_opt);
  std::vector<std::string> files, validate_sets;
  CLI::App* validate = app.add_subcommand("validate", "Check scenario files without running them");
  validate->add_option("scenarios", files, "Scenario JSON files")->required();
  validate->add_option("--set", validate_sets, "Override a key before validation (as in run)");
  app.add_subcommand("list-models", "List every built-in model with its parameters");
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
    app.exit(e);
    return 2;
  }
  try {
    return dispatch(app, run_opt, files, validate_sets);
  } catch (const goodsim::scenario::ScenarioError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  }
}
