// What one run of a scenario produced: the data behind summary.json and
// timeseries.csv. Filled by the models layer, serialised by this layer; plain
// structs so the output code never depends on models.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/output/extra_fields.h"

namespace goodsim::output {

// One sample of one policy. Cumulative figures are from t = 0 to time_s.
struct TimeseriesRow {
  double time_s = 0;
  uint64_t healthy_chips = 0;   // chips not down
  uint64_t active_chips = 0;    // chips computing training steps right now
  bool training = false;        // any step happening anywhere
  uint64_t steps = 0;           // completed steps kept so far
  double tokens = 0;            // tokens in kept steps so far
  double goodput = 0;           // productive chip-time / (chips x time_s)
  double downtime_s = 0;        // global downtime so far
  std::optional<double> loss;   // surrogate loss, when a loss model runs
};

// One learner of a multi-learner policy (summary.json "learners"; docs/outputs.md).
struct LearnerResult {
  uint32_t index = 0;
  uint64_t chips = 0;           // chips of its slices
  double goodput = 0;           // tokens kept / tokens its slices compute at base pace in `end`
  // Seconds in each mode of its group ("training", "reconfigure", "waiting", "down").
  std::vector<std::pair<std::string, double>> time_by_mode;
  uint64_t steps = 0;           // its own inner steps
  double tokens = 0;            // tokens it computed and kept
  uint64_t rejoins = 0;         // times it came back after being down
  // Fields its policy adds (extra_fields.h); every learner carries learner_fields().
  ExtraFields extra = learner_fields();
};

// What explains a policy's figures (summary.json "diagnostics"; goodsim explain).
struct Diagnostics {
  double end_s = 0;             // the run's end: the horizon, or when the target was reached
  uint32_t job_slices = 0;      // slices - spare_slices
  uint32_t spare_slices = 0;
  double slices_down_mean = 0;  // time-weighted mean of slices with a chip down
  uint32_t slices_down_max = 0;
  // Time with more slices down than spares: a fixed-size job cannot have a full set.
  double spares_exhausted_s = 0;
  std::string checkpoint_rule;  // "perfect", "none", "fixed", "young", "daly"; empty: n/a
  std::optional<double> checkpoint_interval_s;  // compute time between checkpoints, last used
  uint64_t checkpoints = 0;     // checkpoints committed
  // Seconds of the whole job in each of its states (single-job policies).
  std::vector<std::pair<std::string, double>> time_by_state;
  // Fields the policy adds (extra_fields.h); every policy carries diagnostics_fields().
  ExtraFields extra = diagnostics_fields();
};

// What a policy's run cost, with the scenario's "cost" prices (docs/metrics.md, "Cost").
// by_category lists productive then the seven badput categories; they and wan sum to total.
struct CostResult {
  std::string currency;
  double total = 0;            // rental of every slice (spares at their share) + energy
  double rental = 0;           // the chip-hours part of total
  double energy = 0;           // the electricity part of total (0 without an energy price)
  double wan = 0;              // wan_bytes / 1e9 x wan_price_per_gb, part of total
  std::vector<std::pair<std::string, double>> by_category;
  std::optional<double> per_billion_tokens;  // total / (tokens / 1e9); none without tokens
  std::optional<double> to_target;           // cost until time_to_target_s; none if not reached
};

struct PolicyResult {
  std::string name;
  std::string type;
  double goodput = 0;
  double ettr = 0;  // productive / (job chips x end): docs/metrics.md
  double uptime = 0;
  double downtime_s = 0;
  uint64_t outages = 0;          // stops caused by a failure or a recovery
  double longest_outage_s = 0;
  uint64_t checkpoint_pauses = 0;  // stops that were only planned checkpoint writes
  double checkpoint_pause_s = 0;
  uint64_t failures = 0;
  // Outages begun, per root cause, in the order causes were first declared.
  std::vector<std::pair<std::string, uint64_t>> failure_causes;
  double tokens = 0;
  uint64_t steps = 0;
  double wan_bytes = 0;  // bytes sent between sites (all-reduces, fragments, state pulls)
  // Non-productive categories in chip-seconds, in the ledger's fixed order.
  std::vector<std::pair<std::string, double>> badput;
  std::optional<double> final_loss;
  std::optional<double> time_to_target_s;
  std::optional<CostResult> cost;  // with a "cost" section only
  uint64_t fingerprint = 0;
  Diagnostics diagnostics;
  std::vector<LearnerResult> learners;  // multi-learner policies only
  uint64_t events = 0;  // events the engine executed (not in summary.json)
  double wall_s = 0;    // wall-clock seconds the simulation took (not in summary.json)
  std::vector<TimeseriesRow> series;
};

struct RunResult {
  std::string scenario;
  uint64_t seed = 0;
  std::string version;
  std::vector<std::string> sets;  // the --set assignments, in order
  nlohmann::json resolved;        // the scenario with every default filled in (null: unknown)
  double horizon_s = 0;
  uint64_t chips = 0;
  std::vector<PolicyResult> policies;
};

}  // namespace goodsim::output
