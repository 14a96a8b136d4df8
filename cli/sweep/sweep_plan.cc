#include "cli/sweep/sweep_plan.h"

#include <fmt/format.h>

#include "sim/core/version.h"
#include "sim/output/atomic_file.h"
#include "sim/scenario/error.h"
#include "sim/scenario/json_file.h"

namespace goodsim::cli::sweep {
namespace {

using Json = nlohmann::json;
using scenario::ScenarioError;

std::vector<models::PreparedScenario> prepare_points(const Json& base, const std::string& label,
                                                     const Grid& grid,
                                                     const models::Registry& registry) {
  std::vector<models::PreparedScenario> points;
  points.reserve(grid.size());
  for (size_t p = 0; p < grid.size(); ++p) {
    Json doc = base;
    grid.apply(p, doc);
    try {
      points.push_back(models::prepare(doc, label, registry));
    } catch (const ScenarioError& e) {
      if (grid.axes().empty()) throw;
      throw ScenarioError("--vary", "",
                          fmt::format("grid point {} ({}) is not a valid scenario: {}", p,
                                      grid.describe(p), e.what()));
    }
  }
  return points;
}

SweepTable make_table(const Grid& grid, const std::vector<models::PreparedScenario>& points) {
  SweepTable t;
  for (const Axis& a : grid.axes()) t.axis_paths.push_back(a.path);
  for (size_t p = 0; p < points.size(); ++p) {
    SweepTable::Point point{grid.value_texts(p), {}, {}};
    for (const models::PreparedPolicy& pol : points[p].policies) {
      point.policies.push_back(pol.name);
      point.types.push_back(pol.type);
    }
    t.points.push_back(std::move(point));
  }
  return t;
}

Json definition_json(const Json& base, const std::string& label, const Grid& grid,
                     const Replication& r) {
  Json vary = Json::array();
  for (const Axis& a : grid.axes())
    vary.push_back({{"path", a.path}, {"spec", a.spec}, {"values", a.values}});
  return {{"format", "goodsim-sweep/1"},
          {"version", core::kVersion},
          {"scenario_file", label},
          {"scenario", base},
          {"vary", vary},
          {"first_seed", r.first_seed},
          {"seeds", r.initial},
          {"ci_target", r.ci_target ? Json(*r.ci_target) : Json(nullptr)},
          {"max_seeds", r.max_seeds}};
}

// Throws unless `stored` describes the same sweep as `now` ("scenario_file"
// may differ: the same scenario may be reached by another relative path).
void check_same_sweep(const Json& stored, const Json& now, const std::filesystem::path& file) {
  std::string differing;
  for (auto it = now.begin(); it != now.end(); ++it) {
    if (it.key() == "scenario_file") continue;
    if (!stored.is_object() || !stored.contains(it.key()) ||
        Json::parse(stored[it.key()].dump()) != Json::parse(it.value().dump())) {
      differing += (differing.empty() ? "" : ", ") + it.key();
    }
  }
  if (differing.empty()) return;
  throw ScenarioError(
      file.string(), "",
      fmt::format("--resume: this directory holds a different sweep (it differs in: "
                  "{}); resume it with its original command line, or choose "
                  "another --out",
                  differing));
}

}  // namespace

SweepPlan make_plan(const SweepOptions& options, const models::Registry& registry) {
  return make_plan(load_scenario(options.scenario, options.sets, std::nullopt), options, registry);
}

SweepPlan make_plan(const ScenarioSource& src, const SweepOptions& options,
                    const models::Registry& registry) {
  if (!src.doc.is_object()) throw ScenarioError(src.label, "", "expected a JSON object");
  std::vector<Axis> axes;
  for (const std::string& v : options.vary) axes.push_back(parse_vary(v));
  Grid grid(std::move(axes));
  std::vector<models::PreparedScenario> points = prepare_points(src.doc, src.label, grid, registry);
  const models::PreparedScenario& first = points.front();
  Replication rep =
      make_replication(first.scenario.seed, options.seeds, options.ci_target, options.max_seeds);
  std::filesystem::path dir =
      options.out_dir ? *options.out_dir : "out/" + first.scenario.name + "-sweep";
  SweepTable table = make_table(grid, points);
  Json def = definition_json(src.doc, src.label, grid, rep);
  return SweepPlan{src.label,      std::move(grid), std::move(points), std::move(table),
                   std::move(rep), std::move(dir),  std::move(def)};
}

LoadedResults inspect_dir(const SweepPlan& plan, bool resume) {
  const std::filesystem::path def = plan.dir / "sweep.json";
  const std::filesystem::path results = plan.dir / "results.csv";
  const bool has_def = std::filesystem::exists(def);
  const bool has_results = std::filesystem::exists(results);
  if (!resume) {
    if (!has_def && !has_results) return {};
    throw ScenarioError(plan.dir.string(), "",
                        "already holds a sweep (sweep.json, results.csv); add --resume to finish "
                        "it, or choose another --out");
  }
  if (!has_def) {
    if (!has_results) return {};  // nothing to resume: a fresh start
    throw ScenarioError(results.string(), "",
                        "--resume: no sweep.json beside it, so it cannot be matched to this sweep");
  }
  check_same_sweep(scenario::load_json_file(def.string()), plan.definition, def);
  return load_results(results, plan.table, plan.replication.first_seed, plan.replication.max_seeds);
}

void write_definition(const SweepPlan& plan) {
  std::filesystem::create_directories(plan.dir);
  const std::filesystem::path def = plan.dir / "sweep.json";
  if (!std::filesystem::exists(def))
    output::write_file_atomically(def, plan.definition.dump(2) + "\n");
}

}  // namespace goodsim::cli::sweep
