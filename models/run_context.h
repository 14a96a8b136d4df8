// What a model sees of the run it takes part in. One RunContext per policy run:
// each policy is simulated in its own Simulation over its own ClusterState,
// and because injectors draw only from their own named streams, every policy
// of a run faces the same failure history. The one exception is a failure
// scope (`allocated`, `running`): such an injector asks the policy, through
// SliceUse, which candidate failures apply (docs/model-guide.md, "Failure scope").
#pragma once

#include <concepts>

#include "sim/cluster/cluster_state.h"
#include "sim/cluster/layout.h"
#include "sim/cluster/network.h"
#include "sim/core/simulation.h"
#include "sim/output/event_log.h"
#include "sim/output/trace_writer.h"
#include "sim/scenario/scenario.h"

namespace goodsim::models {

class LossTracker;
namespace policy {
class LayerStepModel;
}

// What a scoped failure injector may ask the policy of its run.
class SliceUse {
 public:
  // The policy trains on slice `s` or keeps it for itself (not a spare, not
  // an idle slice).
  virtual bool slice_allocated(cluster::SliceId s) const = 0;
  // Slice `s` is computing training steps right now.
  virtual bool slice_running(cluster::SliceId s) const = 0;

 protected:
  ~SliceUse() = default;
};

struct RunContext {
  core::Simulation& sim;
  cluster::ClusterState& cluster;
  // The run's own copy of the WAN: chaos partitions change it, policies read it.
  cluster::Network& network;
  const scenario::JobSpec& job;
  output::EventLog* events;  // null unless the run logs events
  const std::string& policy_name;
  output::TraceWriter* trace = nullptr;  // null unless the run writes a timeline
  uint32_t trace_pid = 0;                // this policy's process in the trace
  LossTracker* loss = nullptr;           // null unless the scenario has a loss model
  const SliceUse* use = nullptr;         // the run's policy; null: every slice in use
  // Caches the layer-level step model's costs; null unless job.layers is set
  // (dp_step_comm then computes them afresh).
  policy::LayerStepModel* layer_model = nullptr;
  // The run's horizon, when the runner runs to it (in one or several
  // run_until calls): a policy that skips ahead in closed form never skips
  // past it. SimTime::max() (a test driving the engine itself): it skips no
  // further than the run_until() call under way.
  core::SimTime end = core::SimTime::max();
  core::SimTime skip_limit() const { return end != core::SimTime::max() ? end : sim.until(); }

  const cluster::Layout& layout() const { return cluster.layout(); }
  // A timeline track of this policy (0 when no trace is written).
  uint32_t trace_track(std::string_view name) const {
    return trace != nullptr ? trace->track(trace_pid, name) : 0;
  }
  // The state of a track from now on (a no-op without a trace).
  void trace_state(uint32_t track, std::string_view state) const {
    if (trace != nullptr) trace->state(trace_pid, track, state, sim.now());
  }
  void trace_instant(uint32_t track, std::string_view name, const nlohmann::json& args) const {
    if (trace != nullptr) trace->instant(trace_pid, track, name, sim.now(), args);
  }
  // Logs an event when logging is on; `fields` must be a JSON object.
  void log(std::string_view event, const nlohmann::json& fields) const {
    if (events != nullptr) events->record(sim.now(), policy_name, event, fields);
  }
  // Lazy forms for events that happen often: `build()` returns the arguments
  // and runs only when the output is on, so a run without a trace or event
  // log never builds them.
  template <typename Build>
    requires std::invocable<Build&>
  void trace_instant(uint32_t track, std::string_view name, Build&& build) const {
    if (trace != nullptr) trace->instant(trace_pid, track, name, sim.now(), build());
  }
  // A point event that may be dense: `build()` returns {args, tally}, where
  // tally holds the numeric fields averaged where the trace turns dense
  // events into counters (TraceWriter::instant).
  template <typename Build>
    requires std::invocable<Build&>
  void trace_tally(uint32_t track, std::string_view name, Build&& build) const {
    if (trace == nullptr) return;
    const auto [args, tally] = build();
    trace->instant(trace_pid, track, name, sim.now(), args, tally);
  }
  template <typename Build>
    requires std::invocable<Build&>
  void log(std::string_view event, Build&& build) const {
    if (events != nullptr) events->record(sim.now(), policy_name, event, build());
  }
};

}  // namespace goodsim::models
