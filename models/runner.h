// Runs a scenario: every policy in its own Simulation over the same failure
// history (common random numbers), and gathers what the outputs need.
//
// prepare() validates everything before anything runs or is written, so bad
// input fails fast (ScenarioError) and never leaves half-written outputs.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "models/cost_model.h"
#include "models/failure/chaos_script.h"
#include "models/loss/loss_config.h"
#include "models/registry.h"
#include "sim/cluster/layout.h"
#include "sim/cluster/network.h"
#include "sim/output/event_log.h"
#include "sim/output/run_result.h"
#include "sim/output/trace_writer.h"
#include "sim/scenario/scenario.h"

namespace goodsim::models {

struct PreparedFailure {
  std::string stream;  // RNG stream name: "failures.<name>"
  FailureMaker make;
};

struct PreparedStraggler {
  std::string stream;  // RNG stream name: "stragglers.<name>"
  StragglerMaker make;
};

struct PreparedPolicy {
  std::string name;
  std::string type;
  PolicyMaker make;
};

struct PreparedScenario {
  scenario::Scenario scenario;
  cluster::Layout layout;
  cluster::Network network;
  std::vector<PreparedFailure> failures;
  std::vector<PreparedStraggler> stragglers;
  std::vector<PreparedPolicy> policies;
  failure::ChaosTimeline chaos;  // validated "chaos" entries; each run plays them
  std::optional<loss::LossConfig> loss;  // the surrogate loss model, if any
  // Events one policy run may execute before it is stopped with a ScenarioError: the guard
  // behind the estimate of models/resource_estimate.h. Default: no limit.
  uint64_t max_events = UINT64_MAX;
  // The scenario document with every default the readers applied filled in: reading it
  // again gives the same scenario (summary.json "resolved_scenario").
  nlohmann::json resolved;
  std::optional<CostRates> cost;  // the scenario's prices resolved; absent without "cost"
};

// Validates a scenario document (overrides already applied) against the
// registry. Throws ScenarioError naming `file` and the JSON path.
PreparedScenario prepare(const nlohmann::json& doc, const std::string& file,
                         const Registry& registry);

// Told, between slices of a run, how far it got: the policy's name, the simulated
// seconds reached, the horizon in seconds and the events executed so far. Slicing a run
// executes exactly the same events in the same order (no event is added), so a run with
// a progress callback has the fingerprint it has without one.
using RunProgress =
    std::function<void(const std::string& policy, double sim_s, double horizon_s, uint64_t events)>;

// Simulates policy `index` of `prepared` up to the horizon with `seed`. Throws
// ScenarioError when the run reaches prepared.max_events.
// `events` and `trace` may be null. Runs of one PreparedScenario may execute
// concurrently on different threads (each copies what it mutates), but a
// log or trace must not be shared between threads.
output::PolicyResult run_policy(const PreparedScenario& prepared, size_t index, uint64_t seed,
                                output::EventLog* events, output::TraceWriter* trace = nullptr,
                                const RunProgress& progress = nullptr);

// How far policy `index` got (events executed, simulated seconds) when run with `seed`
// until it had executed at least `budget` events, stopping between the slices of
// run_policy (a slice is 1/1000 of the horizon), or until its end (`finished`).
struct PilotCount {
  uint64_t events = 0;
  double sim_s = 0;
  bool finished = false;
};
PilotCount pilot_run(const PreparedScenario& prepared, size_t index, uint64_t seed,
                     uint64_t budget);

// Options of a run's TraceWriter: `max_records` shared by the scenario's
// policies and the shared cluster process, paced over the horizon.
output::TraceOptions trace_options(const PreparedScenario& prepared,
                                   uint64_t max_records = 1'000'000);

// The run-level fields of a result (scenario, seed, version, horizon, chips)
// with no policies yet; run_scenario() appends one PolicyResult per policy.
output::RunResult run_header(const PreparedScenario& prepared, uint64_t seed);

// Simulates every policy, `jobs` at a time on as many threads, the ones with the most
// expected work first (policy_work, longest_first in models/resource_estimate.h), and
// returns their results in policy order. The result, the log and the trace are the same whatever `jobs` is:
// each policy's records go to its own spool (output::EventLog::Spool), appended to
// `events` in policy order; with a `trace` the policies run one after the other (the
// trace's shared tracks and ids follow the order of the runs). When policies throw,
// the first one's exception (in policy order) propagates; later policies may be skipped.
// `progress` must then be callable from several threads at once.
output::RunResult run_scenario(const PreparedScenario& prepared, uint64_t seed,
                               output::EventLog* events, output::TraceWriter* trace = nullptr,
                               const RunProgress& progress = nullptr, unsigned jobs = 1);

}  // namespace goodsim::models
