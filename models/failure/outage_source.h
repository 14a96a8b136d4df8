// OutageSource: what every stochastic injector does once it has decided that a
// unit fails now — draw a root cause and a repair time, fail the unit, log it,
// and end the outage when the repair time has passed.
//
// Draw order per outage (from the injector's own stream, so the history
// depends only on the seed, or from the Rng given to begin_with()): the cause
// (only when the mix has more than one), then the repair (repair_pipeline.h:
// one duration per stage attempted, and a uniform per stage that may fail). Repair events run in core::kBandRepair and carry
// (id, domain) as payload; after the repair the optional callback learns
// which unit came back (weibull_failures uses it to start a fresh lifetime).
//
// Ownership: the injector owns both the OutageSource and the Rng it lends;
// the RunContext outlives the run. Not copyable once started (its handler
// captures `this`).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "models/failure/cause_mix.h"
#include "models/failure/repair_pipeline.h"
#include "models/run_context.h"
#include "sim/core/distributions.h"

namespace goodsim::models::failure {

class OutageSource {
 public:
  using RepairedFn = std::function<void(cluster::Domain, uint32_t id)>;

  // `repair` is in seconds.
  OutageSource(core::Distribution repair, CauseMix causes);
  OutageSource(RepairPipeline repair, CauseMix causes);
  OutageSource(const OutageSource&) = delete;
  OutageSource& operator=(const OutageSource&) = delete;

  // Interns the causes and registers the repair handler "<stream>.repair".
  // REQUIRES: called once, from the injector's start(); `rng` outlives the run.
  void start(RunContext& ctx, core::Rng& rng, const std::string& stream,
             RepairedFn on_repaired = {});

  // Begins an outage of unit `id` of domain `d` now and schedules its end.
  // Returns the repair time drawn. REQUIRES: start() was called.
  core::Duration begin(cluster::Domain d, uint32_t id);
  // Same, drawing the cause and the repair from `rng` instead of the stream.
  core::Duration begin_with(core::Rng& rng, cluster::Domain d, uint32_t id);
  // Same with a given repair time (no repair-time draw).
  void begin_for(cluster::Domain d, uint32_t id, core::Duration repair);

  uint64_t count() const { return count_; }
  // Outages whose repair ended at each stage (see repair_pipeline.h).
  const std::vector<uint64_t>& by_stage() const { return by_stage_; }

 private:
  void start_outage(cluster::Domain d, uint32_t id, cluster::CauseId cause,
                    core::Duration repair);
  void on_repair(cluster::Domain d, uint32_t id);

  RepairPipeline repair_;
  std::vector<uint64_t> by_stage_;
  CauseMix causes_;
  CauseSampler sampler_;
  RunContext* ctx_ = nullptr;
  core::Rng* rng_ = nullptr;
  core::HandlerId repair_handler_ = 0;
  RepairedFn on_repaired_;
  uint64_t count_ = 0;
};

}  // namespace goodsim::models::failure
