// What running a scenario will take, estimated before anything is allocated or run, and
// the limits `goodsim run` enforces with it (--max-events, --max-memory).
//
// Events: each policy run replays the whole failure and straggler history, so the
// scenario's events are (the models' expected events (ResourceUse) + the chaos timeline +
// the samples) x policies. Memory: with one policy run at a time, the peak is one run's
// dense tables (ClusterState per chip and per slice, the policy's slice pools, the
// models' own tables) plus the time series every policy keeps until the outputs are
// written; each run in parallel adds its own tables (run_bytes). Both are
// expectations from the rates and the layout, not bounds: the engine
// also stops any single run at max_events (PreparedScenario::max_events), so an
// underestimate cannot hang.
#pragma once

#include <cstdint>
#include <string>

#include "models/runner.h"

namespace goodsim::models {

struct ResourceEstimate {
  double events_per_run = 0;  // expected events of one policy run
  double events = 0;          // all policy runs together
  double bytes = 0;           // peak memory of the dense tables and the kept time series
  double run_bytes = 0;       // the dense tables of one policy run: what each further run
                              // in parallel adds to `bytes`
};

struct ResourceLimits {
  static constexpr double kDefaultMaxEvents = 1e9;           // minutes of simulation
  static constexpr double kDefaultMaxBytes = 8.0 * (1 << 30);  // 8 GiB
  double max_events = kDefaultMaxEvents;
  double max_bytes = kDefaultMaxBytes;
};

ResourceEstimate estimate_resources(const PreparedScenario& prepared);

// `estimate` with its event counts measured instead of modelled: each policy runs until it
// has executed `budget` events (models::pilot_run), and its count is extrapolated over the
// horizon in proportion to the simulated time (exact when the pilot reached the end).
// The policies' own events (fragment rounds, checkpoints, reconfigurations), which the
// models' expectations cannot see, are counted too. Costs up to `budget` events and one
// run's tables per policy: `goodsim validate` uses it, `run` the modelled estimate.
ResourceEstimate measure_events(const PreparedScenario& prepared, ResourceEstimate estimate,
                                uint64_t budget = 100'000);

// Throws ScenarioError (at the scenario file) when `estimate` exceeds `limits`, giving the
// estimate and the option that raises the limit. Also sets prepared.max_events, the guard
// of each run, to limits.max_events.
void enforce_limits(PreparedScenario& prepared, const ResourceEstimate& estimate,
                    const ResourceLimits& limits);

// "2.3e+11 events, 5.1 GiB" for messages and `goodsim validate`.
std::string describe_estimate(const ResourceEstimate& estimate);

}  // namespace goodsim::models
