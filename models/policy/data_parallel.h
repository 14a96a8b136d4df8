// data_parallel: one synchronous SPMD job over every slice of the cluster.
//
// Any outage that takes down a slice stops the whole job. The job then waits
// until every slice is up again (chips in the waiting period are charged
// `idle`), restarts for `restart_time` (charged `reconfigure`; a failure during
// the restart sends it back to waiting, and the restart begins again), and
// resumes. The step in progress when the job stops is lost (`lost_work`);
// completed steps are kept (no checkpoint rollback in this version).
//
// Progress between state changes is integrated analytically: steps =
// floor(running time / step_time). The step at the horizon, if unfinished,
// stays `productive`: nothing discarded it.
#pragma once

#include <optional>

#include "models/policy/policy.h"
#include "sim/scenario/reader.h"

namespace goodsim::models::policy {

struct DataParallelConfig {
  core::Duration restart_time;  // detection + restart once all slices are up

  static DataParallelConfig from_json(scenario::ObjectReader& r);
};

class DataParallel : public Policy {
 public:
  explicit DataParallel(DataParallelConfig config) : config_(config), ledger_(0) {}

  void start(RunContext& ctx) override;
  void finish(core::SimTime end) override;
  Progress progress(core::SimTime now) const override;
  std::optional<core::SimTime> target_reached_at() const override { return target_at_; }
  uint32_t learner_count() const override { return 1; }
  std::vector<cluster::SliceId> learner_slices(uint32_t k) const override;
  const ChipTimeLedger& ledger() const override { return ledger_; }
  const OutageTracker& outages() const override { return outages_; }
  void on_cluster_change(const cluster::ClusterChange& change) override;

 private:
  enum class State { kRunning, kWaiting, kRestarting };

  void enter(State s, core::SimTime now);
  void refresh_split(core::SimTime now);
  uint64_t steps_in_segment(core::SimTime now) const;
  void close_segment(core::SimTime now, bool discard_partial);
  void on_restart_done();

  DataParallelConfig config_;
  RunContext* ctx_ = nullptr;
  ChipTimeLedger ledger_;
  OutageTracker outages_;
  State state_ = State::kRunning;
  core::HandlerId restart_handler_ = 0;
  core::EventId restart_event_;
  core::SimTime segment_start_;
  uint64_t steps_ = 0;
  std::optional<uint64_t> target_steps_;
  std::optional<core::SimTime> target_at_;
};

}  // namespace goodsim::models::policy
