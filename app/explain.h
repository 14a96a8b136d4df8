// `goodsim explain RUNDIR` and the "why" block printed after the run table:
// what explains each policy's figures, read back from summary.json (so the
// same text comes from a fresh run and from a run directory kept for weeks).
//
// Per policy: the dominant badput categories with their share of chips x end,
// the slices down (mean, max) and the time spares were exhausted, the
// checkpoint rule and the interval actually used, outages by cause, time by
// state or learner mode, per-learner goodput; then warnings for regimes users
// misread (docs/outputs.md, "goodsim explain").
#pragma once

#include <iosfwd>
#include <string>

#include <nlohmann/json.hpp>

namespace goodsim::app {

// The full explanation of a summary document (summary_json() or a summary.json
// file). Throws scenario::ScenarioError naming `source` when a field is missing
// or of the wrong type (a summary of another goodsim version).
std::string explain_summary(const nlohmann::json& summary, const std::string& source);

// The short "why" block: per policy its dominant badput and any warning.
std::string why_block(const nlohmann::json& summary, const std::string& source);

// `goodsim explain PATH`: PATH is a run directory (holding summary.json) or a
// summary.json file. Exit code 0; bad input throws ScenarioError (exit 2).
int explain_command(const std::string& path, std::ostream& out);

}  // namespace goodsim::app
