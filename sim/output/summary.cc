#include "sim/output/summary.h"

#include <fmt/format.h>

#include "sim/output/atomic_file.h"

namespace goodsim::output {
namespace {

using Json = nlohmann::ordered_json;

Json optional_number(const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); }

Json policy_json(const PolicyResult& p) {
  Json badput = Json::object();
  for (const auto& [category, chip_seconds] : p.badput) badput[category] = chip_seconds;
  Json causes = Json::object();
  for (const auto& [cause, count] : p.failure_causes) causes[cause] = count;
  return {{"name", p.name},
          {"type", p.type},
          {"goodput", p.goodput},
          {"uptime", p.uptime},
          {"downtime_s", p.downtime_s},
          {"outages", p.outages},
          {"longest_outage_s", p.longest_outage_s},
          {"checkpoint_pauses", p.checkpoint_pauses},
          {"checkpoint_pause_s", p.checkpoint_pause_s},
          {"failures", p.failures},
          {"failure_causes", std::move(causes)},
          {"tokens", p.tokens},
          {"steps", p.steps},
          {"badput", std::move(badput)},
          {"final_loss", optional_number(p.final_loss)},
          {"time_to_target_s", optional_number(p.time_to_target_s)},
          {"fingerprint", fmt::format("{:016x}", p.fingerprint)}};
}

}  // namespace

nlohmann::ordered_json summary_json(const RunResult& run) {
  Json policies = Json::array();
  for (const PolicyResult& p : run.policies) policies.push_back(policy_json(p));
  return {{"scenario", run.scenario}, {"seed", run.seed},       {"version", run.version},
          {"horizon_s", run.horizon_s}, {"chips", run.chips}, {"policies", std::move(policies)}};
}

std::string timeseries_csv(const RunResult& run) {
  std::string out =
      "policy,time_s,healthy_chips,active_chips,training,steps,tokens,goodput,downtime_s,loss\n";
  for (const PolicyResult& p : run.policies) {
    for (const TimeseriesRow& r : p.series) {
      out += fmt::format("{},{:.9g},{},{},{},{},{:.9g},{:.9g},{:.9g},{}\n", p.name, r.time_s,
                         r.healthy_chips, r.active_chips, r.training ? 1 : 0, r.steps, r.tokens,
                         r.goodput, r.downtime_s, r.loss ? fmt::format("{:.9g}", *r.loss) : "");
    }
  }
  return out;
}

void write_run_outputs(const RunResult& run, const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  write_file_atomically(dir / "summary.json", summary_json(run).dump(2) + "\n");
  write_file_atomically(dir / "timeseries.csv", timeseries_csv(run));
}

}  // namespace goodsim::output
