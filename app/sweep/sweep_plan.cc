#include "app/sweep/sweep_plan.h"

#include <fmt/format.h>

#include "app/scenario_source.h"
#include "models/resource_estimate.h"
#include "sim/core/version.h"
#include "sim/output/atomic_file.h"
#include "sim/scenario/error.h"
#include "sim/scenario/json_file.h"
#include "sim/scenario/overrides.h"

namespace goodsim::app::sweep {
namespace {

using Json = nlohmann::json;
using scenario::ScenarioError;

std::vector<models::PreparedScenario> prepare_points(const ScenarioSource& src,
                                                     const Grid& grid,
                                                     const models::Registry& registry) {
  std::vector<models::PreparedScenario> points;
  points.reserve(grid.size());
  for (size_t p = 0; p < grid.size(); ++p) {
    ScenarioSource point{src.label, src.doc, src.sets};
    grid.apply(p, point.doc);
    try {
      models::PreparedScenario prepared = prepare_source(point, registry);
      // Each run is held to the default limits of `goodsim run`.
      models::enforce_limits(prepared, models::estimate_resources(prepared), {});
      points.push_back(std::move(prepared));
    } catch (const ScenarioError& e) {
      if (grid.axes().empty()) throw;
      // An error at a key an axis sets is the --vary argument's, at that key.
      std::vector<scenario::KeySource> sources;
      for (const Axis& a : grid.axes()) sources.push_back({"--vary", a.path});
      const ScenarioError attributed = scenario::attribute_to_sources(e, sources);
      if (attributed.file() == "--vary") {
        throw ScenarioError("--vary", attributed.path(),
                            fmt::format("{} (grid point {}: {})", attributed.message(), p,
                                        grid.describe(p)));
      }
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

// The resolved scenario of each grid point (defaults filled in, the point's values applied).
Json resolved_points(const std::vector<models::PreparedScenario>& points) {
  Json out = Json::array();
  for (const models::PreparedScenario& p : points) out.push_back(p.resolved);
  return out;
}

Json definition_json(const ScenarioSource& src, const Grid& grid, const Replication& r,
                     const std::optional<Shard>& shard,
                     const std::vector<models::PreparedScenario>& points) {
  Json vary = Json::array();
  for (const Axis& a : grid.axes())
    vary.push_back({{"path", a.path}, {"spec", a.spec}, {"values", a.values}});
  Json def = {{"format", "goodsim-sweep/2"},
          {"version", core::kVersion},
          {"goodsim_version", core::kVersion},
          {"scenario_file", src.label},
          {"sets", src.sets},
          {"scenario", src.doc},
          {"resolved_scenarios", resolved_points(points)},
          {"vary", vary},
          {"first_seed", r.first_seed},
          {"seeds", r.initial},
          {"ci_target", r.ci_target ? Json(*r.ci_target) : Json(nullptr)},
          {"max_seeds", r.max_seeds}};
  if (shard) def["shard"] = {{"index", shard->index}, {"count", shard->count}};
  return def;
}

// Throws unless `stored` describes the same sweep as `now`.
void check_same_sweep(const Json& stored, const Json& now, const std::filesystem::path& file) {
  const std::string differing = differing_keys(stored, now);
  if (differing.empty()) return;
  throw ScenarioError(
      file.string(), "",
      fmt::format("--resume: this directory holds a different sweep (it differs in: "
                  "{}); resume it with its original command line, or choose "
                  "another --out",
                  differing));
}

}  // namespace

std::string differing_keys(const Json& stored, const Json& now) {
  std::string differing;
  for (auto it = now.begin(); it != now.end(); ++it) {
    // The resolved scenarios follow from the rest (scenario, vary, version): naming them
    // would only repeat what differs.
    if (it.key() == "scenario_file" || it.key() == "resolved_scenarios") continue;
    if (!stored.is_object() || !stored.contains(it.key()) ||
        Json::parse(stored[it.key()].dump()) != Json::parse(it.value().dump())) {
      differing += (differing.empty() ? "" : ", ") + it.key();
    }
  }
  if (!stored.is_object()) return differing;
  for (auto it = stored.begin(); it != stored.end(); ++it) {
    if (!now.contains(it.key())) differing += (differing.empty() ? "" : ", ") + it.key();
  }
  return differing;
}

SweepPlan make_plan(const SweepOptions& options, const models::Registry& registry) {
  return make_plan(load_scenario(options.scenario, options.sets, std::nullopt), options, registry);
}

SweepPlan make_plan(const ScenarioSource& src, const SweepOptions& options,
                    const models::Registry& registry) {
  if (!src.doc.is_object()) throw ScenarioError(src.label, "", "expected a JSON object");
  std::optional<Shard> shard;
  if (options.shard) shard = parse_shard(*options.shard);
  std::vector<Axis> axes;
  for (const std::string& v : options.vary) axes.push_back(parse_vary(v));
  Grid grid(std::move(axes));
  std::vector<models::PreparedScenario> points = prepare_points(src, grid, registry);
  const models::PreparedScenario& first = points.front();
  Replication rep =
      make_replication(first.scenario.seed, options.seeds, options.ci_target, options.max_seeds);
  const std::string suffix = shard ? fmt::format("-sweep-shard-{}", shard->index) : "-sweep";
  std::filesystem::path dir =
      options.out_dir ? *options.out_dir : "out/" + first.scenario.name + suffix;
  SweepTable table = make_table(grid, points);
  Json def = definition_json(src, grid, rep, shard, points);
  return SweepPlan{src.label,          std::move(grid), std::move(points), std::move(table),
                   std::move(rep), std::move(dir),  shard,              std::move(def)};
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

}  // namespace goodsim::app::sweep
