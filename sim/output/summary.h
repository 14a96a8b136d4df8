// summary.json and timeseries.csv (DESIGN.md section 5).
#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/output/run_result.h"

namespace goodsim::output {

// The summary document exactly as DESIGN.md section 5 lays it out.
nlohmann::ordered_json summary_json(const RunResult& run);
// One row per policy per sample; header:
// policy,time_s,healthy_chips,active_chips,training,steps,tokens,goodput,downtime_s,loss
std::string timeseries_csv(const RunResult& run);

// Writes DIR/summary.json and DIR/timeseries.csv atomically, creating DIR.
void write_run_outputs(const RunResult& run, const std::filesystem::path& dir);

}  // namespace goodsim::output
