// A hand-driven run for policy tests: a small cluster, a job, a Simulation,
// and outages scripted at exact times, with no injector in between.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "models/policy/policy.h"
#include "models/run_context.h"
#include "sim/cluster/cluster_state.h"

namespace goodsim::testing {

class Harness {
 public:
  // `slices` slices of `chips_per_slice` chips in one site ("a"), or split
  // over sites by `site_slices` when given.
  Harness(uint32_t slices, uint32_t chips_per_slice, scenario::JobSpec job,
          uint32_t spare_slices = 0, std::vector<cluster::SiteShape> sites = {})
      : layout_(chips_per_slice, 1,
                sites.empty() ? std::vector<cluster::SiteShape>{{"a", slices}} : sites,
                spare_slices),
        job_(job),
        state_(layout_),
        ctx_{sim_, state_, network_, job_, nullptr, name_} {
    for (cluster::SiteId s = 0; s < layout_.sites(); ++s) network_.add_site(layout_.site_name(s));
    fail_handler_ = sim_.add_handler("test.fail", [this](const core::Event& e) {
      state_.fail(static_cast<cluster::Domain>(e.b), static_cast<uint32_t>(e.a), sim_.now());
    });
    repair_handler_ = sim_.add_handler("test.repair", [this](const core::Event& e) {
      state_.repair(static_cast<cluster::Domain>(e.b), static_cast<uint32_t>(e.a), sim_.now());
    });
  }

  // Takes unit `id` of domain `d` down at `at` for `for_`.
  void outage(double at_s, double for_s, uint32_t id, cluster::Domain d = cluster::Domain::kSlice) {
    const auto at = core::SimTime::zero() + core::Duration::from_seconds(at_s);
    sim_.schedule_at(at, core::kBandFailure, fail_handler_, id, static_cast<uint64_t>(d));
    sim_.schedule_at(at + core::Duration::from_seconds(for_s), core::kBandRepair, repair_handler_,
                     id, static_cast<uint64_t>(d));
  }

  // Runs `policy` to `horizon_s` (or its early stop) and closes its books.
  core::SimTime run(models::policy::Policy& policy, double horizon_s) {
    state_.add_observer(&policy);
    policy.start(ctx_);
    sim_.run_until(core::SimTime::zero() + core::Duration::from_seconds(horizon_s));
    policy.finish(sim_.now());
    policy.ledger().check_invariant();
    return sim_.now();
  }

  cluster::Network& network() { return network_; }
  cluster::ClusterState& cluster() { return state_; }
  core::Simulation& sim() { return sim_; }
  models::RunContext& ctx() { return ctx_; }

 private:
  cluster::Layout layout_;
  cluster::Network network_;
  scenario::JobSpec job_;
  std::string name_ = "policy";
  core::Simulation sim_{1};
  cluster::ClusterState state_;
  models::RunContext ctx_;
  core::HandlerId fail_handler_ = 0, repair_handler_ = 0;
};

// A job: 1 s steps, `tokens` per step, no WAN, comm fully overlapped.
inline scenario::JobSpec simple_job(double tokens = 1000) {
  scenario::JobSpec j;
  j.params = 1e9;
  j.tokens_per_step = tokens;
  j.step_time = core::Duration::seconds(1);
  j.gradient_bytes = 2e9;
  j.intra_site_bps = 800e9;
  j.comm_overlap = 1.0;
  return j;
}

inline double seconds(const models::policy::ChipTimeLedger& l, models::policy::Category c) {
  return l.chip_seconds(c);
}

}  // namespace goodsim::testing
