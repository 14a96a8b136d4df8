// The parts of per-learner and per-job results (summary.json "learners",
// "diagnostics") that every policy built on ElasticGroup computes the same way.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "models/policy/elastic_group.h"
#include "sim/output/run_result.h"

namespace goodsim::models::policy {

// Seconds the group spent in each mode up to `end`, named as on the timeline.
std::vector<std::pair<std::string, double>> group_time_by_mode(const ElasticGroup& g,
                                                               core::SimTime end);

// Learner `index` as far as its group tells: chips, time by mode and rejoins
// (times it left kDown). The owner fills goodput, steps, tokens, staleness.
output::LearnerResult group_learner_result(const ElasticGroup& g, uint32_t index,
                                           core::SimTime end);

// Logs a "resize" event to events.jsonl ({"from_slices", "to_slices", "mode"}, plus
// "learner" when given) if the group's active slices differ from `last`, then sets `last`.
void log_resize(const RunContext& ctx, const ElasticGroup& g, uint32_t& last,
                std::optional<uint32_t> learner = std::nullopt);

}  // namespace goodsim::models::policy
