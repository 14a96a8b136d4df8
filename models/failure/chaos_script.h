// The scenario's "chaos" list: a timeline of scripted events (docs/chaos.md).
//
//   "chaos": [
//     {"at": "2h", "action": "fail", "target": {"site": "dc-b"}, "duration": "1h"},
//     {"at": "3h", "action": "slow", "target": {"slice": 4}, "factor": 1.5, "duration": "30m"},
//     {"at": "5h", "action": "partition", "site": "dc-a", "duration": "20m"},
//     {"at": "6h", "action": "fail", "target": {"learner": 1}, "duration": "10m"}
//   ]
//
// parse_chaos() validates the entries against the cluster when the scenario
// is prepared; check_learner_targets() validates learner indices against a
// policy. A ChaosScript then plays the timeline in one policy run. Each action
// begins exactly at `at` (band kBandFailure) and ends exactly at
// `at + duration` (band kBandRepair):
//   fail       ClusterState::fail() of the target, repair() at the end, with the
//              entry's cause ("chaos" by default);
//   slow       ClusterState::add_slowdown() of the target by `factor` (mode
//              "scale" by default, or "slowest"), remove_slowdown() at the end;
//   partition  Network::set_site_partitioned(site, true), then false, on the
//              run's own copy of the network.
// A learner target means the slices policy.learner_slices(k) returns at the
// moment the action begins (one outage or slowdown per slice). Learner targets
// are the only part of a chaos timeline that depends on the policy; all other
// actions are identical for every policy of a run.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/learner_view.h"
#include "models/run_context.h"
#include "sim/cluster/layout.h"
#include "sim/cluster/slowdown_state.h"
#include "sim/scenario/scenario.h"

namespace goodsim::models::failure {

enum class ChaosAction : uint8_t { kFail, kSlow, kPartition };
const char* chaos_action_name(ChaosAction a);  // "fail", "slow", "partition"

enum class ChaosTargetKind : uint8_t { kChip, kHost, kSlice, kSite, kLearner };

struct ChaosTarget {
  ChaosTargetKind kind = ChaosTargetKind::kChip;
  uint32_t id = 0;  // unit of the cluster (validated), or learner index (checked per policy)
};

// One validated entry of the timeline.
struct ChaosEvent {
  std::string path;  // "chaos.2", for messages and the event log
  core::Duration at;
  core::Duration duration;  // > 0
  ChaosAction action = ChaosAction::kFail;
  ChaosTarget target;  // kSite for partitions
  std::string cause;   // fail
  double factor = 1;   // slow: >= 1
  cluster::SlowdownMode mode = cluster::SlowdownMode::kScale;  // slow
};

struct ChaosTimeline {
  std::string file;                // scenario file, for messages
  std::vector<ChaosEvent> events;  // in scenario order
};

// Validates the scenario's "chaos" entries: times before the horizon, known
// actions and keys, targets that exist in `layout` (sites by name, with a
// did-you-mean). Throws scenario::ScenarioError naming the entry's JSON path.
ChaosTimeline parse_chaos(const scenario::Scenario& s, const cluster::Layout& layout);
// The same, adding every error found to `errors` instead of throwing.
ChaosTimeline parse_chaos(const scenario::Scenario& s, const cluster::Layout& layout,
                          scenario::ErrorList& errors);

// Throws scenario::ScenarioError at the first learner target with an index >=
// `learners`, naming the policy ("policy \"dp\" has 1 learner").
void check_learner_targets(const ChaosTimeline& timeline, uint32_t learners,
                           const std::string& policy_name);

// Plays a timeline in one policy run. Not copyable; refers to the timeline
// (owned by the PreparedScenario) and to the run's context and policy.
class ChaosScript {
 public:
  explicit ChaosScript(const ChaosTimeline& timeline) : timeline_(timeline) {}
  ChaosScript(const ChaosScript&) = delete;
  ChaosScript& operator=(const ChaosScript&) = delete;

  // Interns the causes, checks learner targets against `policy` (ScenarioError)
  // and schedules every action. REQUIRES: called once, at t = 0, after the
  // policy started; ctx and policy outlive the run.
  void start(RunContext& ctx, LearnerView& policy);
  // Actions begun so far.
  uint64_t actions() const { return actions_; }

 private:
  void begin(size_t index);
  void end(size_t index);
  // The slices a learner target covers now; one unit for other targets.
  std::vector<cluster::SliceId> learner_slices(const ChaosEvent& e) const;
  // Starts (or ends) event `index`'s action on its target.
  void apply(size_t index, bool starting);
  // Logs and traces the start (or end) of event `index` with `fields`.
  void announce(size_t index, bool starting, const nlohmann::json& fields);
  void fail_or_repair(size_t index, bool failing);
  void slow(size_t index, bool starting);
  nlohmann::json describe_target(size_t index) const;

  const ChaosTimeline& timeline_;
  RunContext* ctx_ = nullptr;
  LearnerView* policy_ = nullptr;
  std::vector<cluster::CauseId> causes_;                     // per event (fail)
  std::vector<std::vector<cluster::SliceId>> learner_units_;  // per event, set at begin
  std::vector<std::vector<cluster::SlowdownId>> slowdowns_;  // per event, while active
  uint32_t trace_track_ = 0;  // the policy's "chaos" timeline track
  core::HandlerId begin_handler_ = 0;
  core::HandlerId end_handler_ = 0;
  uint64_t actions_ = 0;
};

}  // namespace goodsim::models::failure
