// SingleJobPolicy: the base of the policies that train one job over the
// cluster (data_parallel, elastic_data_parallel), a PolicyBase whose only
// learner is that job.
//
// It answers for each of them:
//  - learner_count(): 1 (learner 0 is the job);
//  - on_slowdown_change() and on_network_change(): the job's step time may
//    have changed (a slower member, or a partition that changes its WAN
//    cost), so the job re-paces from now: repace();
//  - finish(end): the job first brings its own state to the end of the run
//    (settle()), then the ledger and the outage tracker are closed at `end`.
// A derived policy sets ctx_ first in start(); now() is the run's time.
#pragma once

#include <cstdint>

#include "models/policy/policy_base.h"

namespace goodsim::models::policy {

class SingleJobPolicy : public PolicyBase {
 public:
  uint32_t learner_count() const override { return 1; }
  void on_slowdown_change(const cluster::SlowdownChange& /*change*/) override { repace(); }
  void on_network_change() override { repace(); }
  void finish(core::SimTime end) override {
    settle(end);
    ledger_.advance(end);
    outages_.finish(end);
  }

 protected:
  // The job's pace may have changed: it re-paces from now.
  virtual void repace() = 0;
  // Brings the job's own state (step clock, loss model) to `end`.
  virtual void settle(core::SimTime end) = 0;
  // REQUIRES: start() has set ctx_.
  core::SimTime now() const { return ctx_->sim.now(); }

  RunContext* ctx_ = nullptr;  // the run, set by start()
};

}  // namespace goodsim::models::policy
