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

// Productive chip-time share of `chips` over `end` for `tokens` kept at
// `tokens_per_slice_step` per slice-step of `step` (base step time):
// tokens / tokens_per_slice_step x step x chips_per_slice / (chips x end).
double token_goodput(double tokens, double tokens_per_slice_step, core::Duration step,
                     uint64_t chips_per_slice, uint64_t chips, core::SimTime end);

// Logs a "resize" event to events.jsonl ({"from_slices", "to_slices", "mode"}, plus
// "learner" when given) if the group's active slices differ from `last`, then sets `last`.
void log_resize(const RunContext& ctx, const ElasticGroup& g, uint32_t& last,
                std::optional<uint32_t> learner = std::nullopt);

}  // namespace goodsim::models::policy
