#include "sim/output/summary.h"

#include <fmt/format.h>

#include <type_traits>
#include <utility>
#include <variant>

#include "sim/core/check.h"
#include "sim/output/atomic_file.h"

namespace goodsim::output {
namespace {

using Json = nlohmann::ordered_json;

Json optional_number(const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); }

Json named_seconds(const std::vector<std::pair<std::string, double>>& v) {
  Json out = Json::object();
  for (const auto& [name, seconds] : v) out[name] = seconds;
  return out;
}

// Appends each extra field to `out`, in declaration order. A policy's field never
// replaces a built-in key of the same name.
Json with_extra(Json out, const ExtraFields& extra) {
  for (const ExtraFields::Field& f : extra.fields()) {
    GOODSIM_CHECK_MSG(!out.contains(f.key), "summary field \"" + f.key + "\" is built in");
    out[f.key] = std::visit(
        [](const auto& v) -> Json {
          if constexpr (std::is_same_v<std::decay_t<decltype(v)>, std::monostate>) {
            return nullptr;
          } else {
            return v;
          }
        },
        f.value);
  }
  return out;
}

Json diagnostics_json(const Diagnostics& d) {
  Json out = {{"end_s", d.end_s},
          {"job_slices", d.job_slices},
          {"spare_slices", d.spare_slices},
          {"slices_down_mean", d.slices_down_mean},
          {"slices_down_max", d.slices_down_max},
          {"spares_exhausted_s", d.spares_exhausted_s},
          {"checkpoint_rule", d.checkpoint_rule.empty() ? Json(nullptr) : Json(d.checkpoint_rule)},
          {"checkpoint_interval_s", optional_number(d.checkpoint_interval_s)},
          {"checkpoints", d.checkpoints},
          {"time_by_state_s", named_seconds(d.time_by_state)}};
  return with_extra(std::move(out), d.extra);
}

Json learner_json(const LearnerResult& l) {
  Json out = {{"index", l.index},
          {"chips", l.chips},
          {"goodput", l.goodput},
          {"time_by_mode_s", named_seconds(l.time_by_mode)},
          {"steps", l.steps},
          {"tokens", l.tokens},
          {"rejoins", l.rejoins}};
  return with_extra(std::move(out), l.extra);
}

Json cost_json(const std::optional<CostResult>& c) {
  if (!c) return nullptr;
  Json by = Json::object();
  for (const auto& [category, amount] : c->by_category) by[category] = amount;
  return {{"currency", c->currency},
          {"total", c->total},
          {"rental", c->rental},
          {"energy", c->energy},
          {"wan", c->wan},
          {"per_billion_tokens", optional_number(c->per_billion_tokens)},
          {"to_target", optional_number(c->to_target)},
          {"by_category", std::move(by)}};
}

Json policy_json(const PolicyResult& p) {
  Json badput = Json::object();
  for (const auto& [category, chip_seconds] : p.badput) badput[category] = chip_seconds;
  // Cause names are distinct (interned per run): they are appended without the linear key
  // search of ordered_json's operator[], which made a summary quadratic in the causes.
  Json causes = Json::object();
  auto& cause_entries = causes.get_ref<Json::object_t&>();
  cause_entries.reserve(p.failure_causes.size());
  for (const auto& [cause, count] : p.failure_causes) cause_entries.emplace_back(cause, count);
  Json learners = Json::array();
  for (const LearnerResult& l : p.learners) learners.push_back(learner_json(l));
  return {{"name", p.name},
          {"type", p.type},
          {"goodput", p.goodput},
          {"ettr", p.ettr},
          {"fleet_goodput", p.goodput},
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
          {"wan_bytes", p.wan_bytes},
          {"badput", std::move(badput)},
          {"final_loss", optional_number(p.final_loss)},
          {"time_to_target_s", optional_number(p.time_to_target_s)},
          {"cost", cost_json(p.cost)},
          {"fingerprint", fmt::format("{:016x}", p.fingerprint)},
          {"diagnostics", diagnostics_json(p.diagnostics)},
          {"learners", std::move(learners)}};
}

}  // namespace

nlohmann::ordered_json summary_json(const RunResult& run) {
  Json policies = Json::array();
  for (const PolicyResult& p : run.policies) policies.push_back(policy_json(p));
  return {{"format", kSummaryFormat},
          {"scenario", run.scenario},
          {"seed", run.seed},
          {"version", run.version},
          {"goodsim_version", run.version},
          {"horizon_s", run.horizon_s},
          {"chips", run.chips},
          {"sets", run.sets},
          {"policies", std::move(policies)},
          {"resolved_scenario", run.resolved}};
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
  write_file_atomically(dir / "timeseries.csv", timeseries_csv(run));
  write_file_atomically(dir / "summary.json", summary_json(run).dump(2) + "\n");
}

}  // namespace goodsim::output
