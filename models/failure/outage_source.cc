#include "models/failure/outage_source.h"

#include <utility>

namespace goodsim::models::failure {

OutageSource::OutageSource(core::Distribution repair, CauseMix causes)
    : OutageSource(RepairPipeline::single(std::move(repair)), std::move(causes)) {}

OutageSource::OutageSource(RepairPipeline repair, CauseMix causes)
    : repair_(std::move(repair)), by_stage_(repair_.stages().size(), 0),
      causes_(std::move(causes)) {}

void OutageSource::start(RunContext& ctx, core::Rng& rng, const std::string& stream,
                         RepairedFn on_repaired) {
  ctx_ = &ctx;
  rng_ = &rng;
  on_repaired_ = std::move(on_repaired);
  sampler_ = CauseSampler(causes_, ctx.cluster);
  repair_handler_ = ctx.sim.add_handler(stream + ".repair", [this](const core::Event& e) {
    on_repair(static_cast<cluster::Domain>(e.b), static_cast<uint32_t>(e.a));
  });
}

core::Duration OutageSource::begin(cluster::Domain d, uint32_t id) {
  return begin_with(*rng_, d, id);
}

core::Duration OutageSource::begin_with(core::Rng& rng, cluster::Domain d, uint32_t id) {
  const cluster::CauseId cause = sampler_.draw(rng);
  const RepairPipeline::Outcome repair = repair_.draw(rng);
  ++by_stage_[repair.stage];
  start_outage(d, id, cause, repair.time);
  return repair.time;
}

void OutageSource::begin_for(cluster::Domain d, uint32_t id, core::Duration repair) {
  start_outage(d, id, sampler_.draw(*rng_), repair);
}

void OutageSource::start_outage(cluster::Domain d, uint32_t id, cluster::CauseId cause,
                                core::Duration repair) {
  ++count_;
  ctx_->log("failure", [&] {
    return nlohmann::json{{"domain", cluster::domain_name(d)}, {"id", id},
                          {"cause", ctx_->cluster.cause_name(cause)}};
  });
  ctx_->cluster.fail(d, id, ctx_->sim.now(), cause);
  ctx_->sim.schedule_in(repair, core::kBandRepair, repair_handler_, id,
                        static_cast<uint64_t>(d));
}

void OutageSource::on_repair(cluster::Domain d, uint32_t id) {
  ctx_->log("repair", [&] { return nlohmann::json{{"domain", cluster::domain_name(d)}, {"id", id}}; });
  ctx_->cluster.repair(d, id, ctx_->sim.now());
  if (on_repaired_) on_repaired_(d, id);
}

}  // namespace goodsim::models::failure
