#include "app/sweep/merge.h"

#include <fmt/format.h>

#include <chrono>
#include <map>
#include <ostream>

#include "app/scenario_source.h"
#include "app/sweep/schedule.h"
#include "app/sweep/sweep.h"
#include "sim/scenario/error.h"
#include "sim/scenario/json_file.h"

namespace goodsim::app::sweep {
namespace {

using Json = nlohmann::json;
using scenario::ScenarioError;

struct ShardDir {
  std::filesystem::path dir;
  Shard shard;
};

// The shard's definition without its "shard" key; sets `shard`.
Json read_shard_definition(const std::filesystem::path& dir, Shard& shard) {
  const std::string file = (dir / "sweep.json").string();
  Json def = scenario::load_json_file(file);
  const Json* s = def.is_object() && def.contains("shard") ? &def["shard"] : nullptr;
  if (!s || !s->is_object() || !(*s)["index"].is_number_unsigned() ||
      !(*s)["count"].is_number_unsigned() || (*s)["index"] >= (*s)["count"]) {
    throw ScenarioError(file, "shard",
                        "not a shard of a sweep (made by goodsim sweep --shard i/n)");
  }
  shard = {(*s)["index"].get<size_t>(), (*s)["count"].get<size_t>()};
  def.erase("shard");
  return def;
}

// Reads every shard's definition; they must all be of one sweep and cover
// each of its n shards exactly once. Returns the common definition.
Json read_definitions(const std::vector<std::string>& dirs, std::vector<ShardDir>& shards) {
  Json common;
  std::map<size_t, std::string> seen;
  for (const std::string& d : dirs) {
    ShardDir s{d, {}};
    Json def = read_shard_definition(s.dir, s.shard);
    if (shards.empty()) {
      common = def;
      shards.push_back(s);
    }
    const std::string diff = differing_keys(common, def);
    if (!diff.empty() || s.shard.count != shards.front().shard.count) {
      throw ScenarioError(d, "", fmt::format("a shard of another sweep than {} (it differs in: {})",
                                             shards.front().dir.string(),
                                             diff.empty() ? "shard count" : diff));
    }
    if (!seen.emplace(s.shard.index, d).second) {
      throw ScenarioError(d, "", fmt::format("shard {} is also given as {}", s.shard.index,
                                             seen[s.shard.index]));
    }
    if (seen.size() > 1) shards.push_back(std::move(s));
  }
  std::string missing;
  for (size_t i = 0; i < shards.front().shard.count; ++i) {
    if (!seen.count(i)) missing += (missing.empty() ? "" : ", ") + std::to_string(i);
  }
  if (!missing.empty()) {
    throw ScenarioError("sweep-merge", "",
                        fmt::format("shard(s) {} of {} missing", missing, shards.front().shard.count));
  }
  return common;
}

SweepPlan plan_of(const Json& def, const std::string& out_dir, const models::Registry& registry) {
  SweepOptions o;
  for (const Json& axis : def.at("vary")) {
    o.vary.push_back(axis.at("path").get<std::string>() + "=" + axis.at("spec").get<std::string>());
  }
  o.seeds = def.at("seeds").get<size_t>();
  if (!def.at("ci_target").is_null()) {
    o.ci_target = def.at("ci_target").get<double>();
    o.max_seeds = def.at("max_seeds").get<size_t>();
  }
  o.out_dir = out_dir;
  SweepPlan plan =
      make_plan(ScenarioSource{def.at("scenario_file").get<std::string>(), def.at("scenario"), {}},
                o, registry);
  const std::string diff = differing_keys(def, plan.definition);
  if (!diff.empty()) {
    throw ScenarioError("sweep-merge", "",
                        fmt::format("the shards were made by another goodsim or differ from "
                                    "what this one makes of their definition (in: {})",
                                    diff));
  }
  return plan;
}

LoadedResults read_rows(const SweepPlan& plan, const std::vector<ShardDir>& shards) {
  LoadedResults all;
  const Replication& r = plan.replication;
  for (const ShardDir& s : shards) {
    const std::filesystem::path file = s.dir / "results.csv";
    for (ResultRow& row : load_results(file, plan.table, r.first_seed, r.max_seeds).rows) {
      if (!s.shard.owns(row.point, static_cast<size_t>(row.seed - r.first_seed), r)) {
        throw ScenarioError(file.string(), "",
                            fmt::format("holds point {} seed {}, a run of another shard", row.point,
                                        row.seed));
      }
      all.rows.push_back(std::move(row));
    }
  }
  return all;
}

// Throws naming the first shard with a missing run.
void check_complete(const SweepPlan& plan, const std::vector<ShardDir>& shards,
                    const std::vector<SweepTask>& missing) {
  if (missing.empty()) return;
  const SweepTask& t = missing.front();
  for (const ShardDir& s : shards) {
    if (!s.shard.owns(t.point, t.k, plan.replication)) continue;
    throw ScenarioError(
        s.dir.string(), "",
        fmt::format("shard {} is incomplete: point {} seed {} has no rows ({} run(s) missing in "
                    "all); finish it with goodsim sweep ... --shard {}/{} --resume",
                    s.shard.index, t.point, plan.replication.seed(t.k), missing.size(),
                    s.shard.index, s.shard.count));
  }
}

}  // namespace

int merge_command(const MergeOptions& options, std::ostream& out) {
  const auto start = std::chrono::steady_clock::now();
  std::vector<ShardDir> shards;
  const Json def = read_definitions(options.dirs, shards);
  const models::Registry registry = models::builtin_registry();
  const SweepPlan plan = plan_of(def, options.out_dir, registry);
  inspect_dir(plan, false);
  SweepSchedule schedule(plan, read_rows(plan, shards));
  check_complete(plan, shards, schedule.start());
  write_definition(plan);
  write_outputs(plan, schedule);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!options.quiet) {
    print_report(plan, schedule, seconds, fmt::format("{} shards merged", shards.size()), out);
  }
  return 0;
}

}  // namespace goodsim::app::sweep
