// What one run of a scenario produced: the data behind summary.json and
// timeseries.csv. Filled by the models layer, serialised by this layer; plain
// structs so the output code never depends on models.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

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

struct PolicyResult {
  std::string name;
  std::string type;
  double goodput = 0;
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
  // Non-productive categories in chip-seconds, in the ledger's fixed order.
  std::vector<std::pair<std::string, double>> badput;
  std::optional<double> final_loss;
  std::optional<double> time_to_target_s;
  uint64_t fingerprint = 0;
  uint64_t events = 0;  // events the engine executed (not in summary.json)
  double wall_s = 0;    // wall-clock seconds the simulation took (not in summary.json)
  std::vector<TimeseriesRow> series;
};

struct RunResult {
  std::string scenario;
  uint64_t seed = 0;
  std::string version;
  double horizon_s = 0;
  uint64_t chips = 0;
  std::vector<PolicyResult> policies;
};

}  // namespace goodsim::output
