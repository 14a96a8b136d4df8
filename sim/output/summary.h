// summary.json and timeseries.csv (README "A tour of the CLI"; docs/architecture.md).
#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/output/run_result.h"

namespace goodsim::output {

// The schema version of summary.json ("format"); bumped when a field changes meaning or
// goes away (new fields do not bump it).
inline constexpr const char* kSummaryFormat = "goodsim-summary/1";

// The summary document, every field documented in docs/outputs.md: { "format",
// "scenario", "seed", "version", "goodsim_version", "horizon_s", "chips", "sets",
// "policies": [ { "name", "type", "goodput", "ettr", "fleet_goodput", "uptime", "downtime_s", "outages",
// "longest_outage_s", "checkpoint_pauses", "checkpoint_pause_s", "failures",
// "failure_causes", "tokens", "steps", "badput": {category: chip_seconds}, "final_loss",
// "time_to_target_s" (null if not reached), "fingerprint", "diagnostics", "learners" } ],
// "resolved_scenario" }, keys in this order.
nlohmann::ordered_json summary_json(const RunResult& run);
// One row per policy per sample; header:
// policy,time_s,healthy_chips,active_chips,training,steps,tokens,goodput,downtime_s,loss
std::string timeseries_csv(const RunResult& run);

// Writes DIR/timeseries.csv, then DIR/summary.json (last, so that a summary marks a
// complete run), each atomically, creating DIR.
void write_run_outputs(const RunResult& run, const std::filesystem::path& dir);

}  // namespace goodsim::output
