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

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

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

// The expected work of each policy's run, in policy order: the modelled events of one run
// (estimate.events_per_run, the same for every policy: each replays the same history)
// times the learners the policy keeps (LearnerView::learner_count() of a fresh policy; a
// count of 0, one learner per site decided at start, is the layout's sites; at least 1). The learners stand for what the events do not show: a multi-learner policy
// adds its own rounds and visits its learners on each change, so its work grows with them
// (scenarios/paper-1.2m.json, `goodsim run -v`: 0.03 s for data_parallel, 0.19, 0.31, 0.49
// and 0.89 s for Decoupled DiLoCo with 2, 4, 8 and 16 learners). A ranking for scheduling
// runs, not a prediction of seconds; no policy is run to make it.
std::vector<double> policy_work(const PreparedScenario& prepared, const ResourceEstimate& estimate);

// The order in which to start the policies' runs on parallel threads: by decreasing
// `work`, ties in policy order (longest processing time first, so the slowest run does
// not start last and leave the other threads idle at the end).
std::vector<size_t> longest_first(const std::vector<double>& work);

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
