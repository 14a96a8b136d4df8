// Everything a sweep needs before its first run, checked up front: the
// scenario with its --set overrides, the grid, every grid point prepared (so a
// point whose scenario is invalid fails before anything runs or is written),
// the replication rule, the output directory and the sweep's definition.
#pragma once

#include <cstddef>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "app/scenario_source.h"
#include "models/runner.h"
#include "app/sweep/grid.h"
#include "app/sweep/replication.h"
#include "app/sweep/results_file.h"
#include "app/sweep/shard.h"

namespace goodsim::app::sweep {

struct SweepOptions {
  std::string scenario;                // scenario file
  std::vector<std::string> vary;       // --vary PATH=VALUES, in order (outermost first)
  std::vector<std::string> sets;       // --set k=v, applied before --vary
  size_t seeds = 10;                   // seeds per grid point (initial, with --ci-target)
  unsigned jobs = 0;                   // worker threads; 0: the number of cores
  std::optional<std::string> out_dir;  // default: out/<scenario name>-sweep
  std::optional<double> ci_target;     // goodput CI half-width to reach
  std::optional<size_t> max_seeds;     // cap for --ci-target (default max(100, seeds))
  std::optional<std::string> shard;    // --shard i/n
  bool resume = false;
  bool quiet = false;  // no progress, no table
};

struct SweepPlan {
  std::string label;  // scenario file as given
  Grid grid;
  std::vector<models::PreparedScenario> points;  // one per grid point
  SweepTable table;
  Replication replication;
  std::filesystem::path dir;
  std::optional<Shard> shard;  // --shard: this process runs only that part
  nlohmann::json definition;   // the content of DIR/sweep.json
};

// Validates the whole sweep. Throws ScenarioError on bad input.
SweepPlan make_plan(const SweepOptions& options, const models::Registry& registry);
// The same from a scenario already loaded (options.scenario unused; src.label
// names it in messages), as sweep-merge rebuilds a stored sweep.
SweepPlan make_plan(const ScenarioSource& src, const SweepOptions& options,
                    const models::Registry& registry);

// Checks DIR against the plan (a new sweep must not overwrite another one;
// --resume must continue the very same sweep) and reads the rows already
// there. Writes nothing. Throws ScenarioError.
LoadedResults inspect_dir(const SweepPlan& plan, bool resume);

// The keys of sweep definition `now` whose values differ in `stored`
// ("a, b"), empty when they describe the same sweep. "scenario_file" is not
// compared: the same scenario may be reached by another relative path.
std::string differing_keys(const nlohmann::json& stored, const nlohmann::json& now);

// Creates DIR and, unless it is there already, DIR/sweep.json (atomically).
void write_definition(const SweepPlan& plan);

}  // namespace goodsim::app::sweep
