// What a model sees of the run it takes part in. One RunContext per policy run:
// each policy is simulated in its own Simulation over its own ClusterState,
// and because injectors draw only from their own named streams and never look
// at the policy, every policy of a run faces the same failure history.
#pragma once

#include "sim/cluster/cluster_state.h"
#include "sim/cluster/layout.h"
#include "sim/cluster/network.h"
#include "sim/core/simulation.h"
#include "sim/output/event_log.h"
#include "sim/scenario/scenario.h"

namespace goodsim::models {

struct RunContext {
  core::Simulation& sim;
  cluster::ClusterState& cluster;
  const cluster::Network& network;
  const scenario::JobSpec& job;
  output::EventLog* events;  // null unless the run logs events
  const std::string& policy_name;

  const cluster::Layout& layout() const { return cluster.layout(); }
  // Logs an event when logging is on; `fields` must be a JSON object.
  void log(std::string_view event, const nlohmann::json& fields) const {
    if (events != nullptr) events->record(sim.now(), policy_name, event, fields);
  }
};

}  // namespace goodsim::models
