#include "models/failure/exponential_failures.h"

#include "sim/core/distributions.h"

namespace goodsim::models::failure {

ExponentialFailuresConfig ExponentialFailuresConfig::from_json(scenario::ObjectReader& r) {
  ExponentialFailuresConfig c;
  c.mtbf = r.duration("mtbf", core::Duration::days(365),
                      "mean up-time of one chip between failures", core::Duration::nanos(1));
  c.repair_time = r.duration("repair_time", core::Duration::hours(1),
                             "fixed time until a failed chip is back", core::Duration::zero());
  return c;
}

ExponentialFailures::ExponentialFailures(ExponentialFailuresConfig config, std::string stream)
    : config_(config), stream_(std::move(stream)) {}

void ExponentialFailures::start(RunContext& ctx) {
  ctx_ = &ctx;
  rng_ = ctx.sim.rng(stream_);
  mean_gap_s_ = config_.mtbf.seconds_f() / static_cast<double>(ctx.layout().chips());
  arrival_handler_ = ctx.sim.add_handler(stream_ + ".arrival", [this](const core::Event&) {
    on_arrival();
  });
  repair_handler_ = ctx.sim.add_handler(stream_ + ".repair", [this](const core::Event& e) {
    on_repair(static_cast<cluster::ChipId>(e.a));
  });
  schedule_next_arrival();
}

void ExponentialFailures::schedule_next_arrival() {
  const core::Duration gap = core::Duration::from_seconds(core::exponential(*rng_, mean_gap_s_));
  ctx_->sim.schedule_in(gap, core::kBandFailure, arrival_handler_);
}

void ExponentialFailures::on_arrival() {
  const auto chip = static_cast<cluster::ChipId>(rng_->below(ctx_->layout().chips()));
  schedule_next_arrival();
  if (!ctx_->cluster.chip_up(chip)) return;  // thinning: a down chip cannot fail
  ++failures_;
  ctx_->log("failure", {{"domain", "chip"}, {"id", chip}});
  ctx_->cluster.fail(cluster::Domain::kChip, chip, ctx_->sim.now());
  ctx_->sim.schedule_in(config_.repair_time, core::kBandRepair, repair_handler_, chip);
}

void ExponentialFailures::on_repair(cluster::ChipId chip) {
  ctx_->log("repair", {{"domain", "chip"}, {"id", chip}});
  ctx_->cluster.repair(cluster::Domain::kChip, chip, ctx_->sim.now());
}

}  // namespace goodsim::models::failure
