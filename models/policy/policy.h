// Interface of every training policy (models/policy/).
//
// A policy observes the cluster (it is a ClusterObserver registered on the
// run's ClusterState), schedules its own timers, and keeps the chip-time
// ledger and the outage tracker of its run. It never changes cluster health.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "models/learner_view.h"
#include "models/policy/chip_time_ledger.h"
#include "models/policy/outage_tracker.h"
#include "models/run_context.h"
#include "sim/cluster/cluster_state.h"
#include "sim/output/run_result.h"

namespace goodsim::models::policy {

// Training progress at one instant.
struct Progress {
  uint64_t steps = 0;         // completed steps whose result is kept
  double tokens = 0;          // tokens in those steps
  uint64_t active_chips = 0;  // chips computing steps right now
};

class Policy : public cluster::ClusterObserver, public SliceUse, public LearnerView {
 public:
  // Called once at t = 0, after the cluster is built and before any event.
  virtual void start(RunContext& ctx) = 0;
  // Closes the books at the end of the run (the horizon).
  virtual void finish(core::SimTime end) = 0;
  virtual Progress progress(core::SimTime now) const = 0;
  // When the job's token target was reached, if it was.
  virtual std::optional<core::SimTime> target_reached_at() const = 0;
  // learner_count(), learner_slices() and on_network_change(): LearnerView.
  // Reports training that became durable up to `now` to ctx.loss (if any).
  // The runner calls it before each sample; finish() reports the rest.
  virtual void flush_loss(core::SimTime now) { static_cast<void>(now); }
  // Failure scopes (SliceUse): a policy that does not say uses every slice
  // and computes on it all the time.
  bool slice_allocated(cluster::SliceId) const override { return true; }
  bool slice_running(cluster::SliceId) const override { return true; }
  virtual const ChipTimeLedger& ledger() const = 0;
  virtual const OutageTracker& outages() const = 0;
  // What the policy knows that explains its figures (checkpoint rule and interval, time by
  // state, ...); the runner fills the cluster's part. REQUIRES: finish(end) has run.
  virtual void describe(output::Diagnostics& d, core::SimTime end) const {
    static_cast<void>(d);
    static_cast<void>(end);
  }
  // Bytes the run sent between sites (comm_model.h, "WAN bytes"): cross-site
  // all-reduces, fragment exchanges and state pulls; every built-in policy
  // counts them. A policy that does not say sends nothing across sites.
  // REQUIRES: finish(end) has run.
  virtual double wan_bytes(core::SimTime end) const {
    static_cast<void>(end);
    return 0;
  }
  // One result per learner for multi-learner policies; empty otherwise.
  // REQUIRES: finish(end) has run.
  virtual std::vector<output::LearnerResult> learner_results(core::SimTime end) const {
    static_cast<void>(end);
    return {};
  }
};

}  // namespace goodsim::models::policy
