#include "models/straggler/transient_stragglers.h"

#include "sim/scenario/distribution_reader.h"

namespace goodsim::models::straggler {

TransientStragglersConfig TransientStragglersConfig::from_json(scenario::ObjectReader& r) {
  TransientStragglersConfig c;
  c.mtbe = r.duration("mtbe", "mean nominal-speed time of one unit between slowdown episodes",
                      core::Duration::nanos(1));
  c.duration = scenario::duration_distribution(r, "duration", "length of one episode");
  c.factor = read_factor_law(r, std::nullopt, "a unit during an episode");
  c.domain = read_unit_domain(r, "unit that has episodes: chip, host or slice");
  return c;
}

TransientStragglers::TransientStragglers(TransientStragglersConfig config, std::string stream)
    : StreamModel(std::move(stream)), config_(std::move(config)) {}

void TransientStragglers::start(RunContext& ctx) {
  bind(ctx);
  units_ = ctx.layout().count(config_.domain);
  mean_gap_s_ = config_.mtbe.seconds_f() / static_cast<double>(units_);
  busy_.assign((units_ + 63) / 64, 0);
  arrival_handler_ = add_handler("arrival", [this](const core::Event&) { on_arrival(); });
  end_handler_ = add_handler(
      "end", [this](const core::Event& e) { on_end(static_cast<uint32_t>(e.a), e.b); });
  schedule_next_arrival();
}

void TransientStragglers::schedule_next_arrival() {
  const core::Duration gap = core::Duration::from_seconds(core::exponential(*rng_, mean_gap_s_));
  ctx_->sim.schedule_in(gap, core::kBandFailure, arrival_handler_);
}

void TransientStragglers::on_arrival() {
  const auto unit = static_cast<uint32_t>(rng_->below(units_));
  schedule_next_arrival();
  if (in_episode(unit)) return;  // thinning: a slow unit cannot start another episode
  const double factor = config_.factor.sample(*rng_);
  const core::Duration length = core::Duration::from_seconds(config_.duration.sample(*rng_));
  ++episodes_;
  set_episode(unit, true);
  const auto target = cluster::SlowdownTarget::of(config_.domain, unit);
  const cluster::SlowdownId id =
      ctx_->cluster.add_slowdown(target, factor, cluster::SlowdownMode::kSlowest, ctx_->sim.now());
  ctx_->log("slowdown_start", [&] {
    return nlohmann::json{{"domain", cluster::domain_name(config_.domain)},
                          {"id", unit},
                          {"factor", factor},
                          {"duration_s", length.seconds_f()}};
  });
  ctx_->sim.schedule_in(length, core::kBandRepair, end_handler_, unit, id.value());
}

void TransientStragglers::on_end(uint32_t unit, uint64_t slowdown) {
  set_episode(unit, false);
  ctx_->cluster.remove_slowdown(cluster::SlowdownId::from_value(slowdown), ctx_->sim.now());
  ctx_->log("slowdown_end", [&] {
    return nlohmann::json{{"domain", cluster::domain_name(config_.domain)}, {"id", unit}};
  });
}

void TransientStragglers::set_episode(uint32_t unit, bool on) {
  const uint64_t bit = uint64_t{1} << (unit % 64);
  if (on) {
    busy_[unit / 64] |= bit;
  } else {
    busy_[unit / 64] &= ~bit;
  }
}


// An episode start and end per episode at the units' total rate; one bit per unit.
ResourceUse TransientStragglers::expected_use(const cluster::Layout& layout,
                                              core::Duration horizon) const {
  const auto units = static_cast<double>(layout.count(config_.domain));
  return {2 * units * horizon.seconds_f() / config_.mtbe.seconds_f(), units / 8};
}

}  // namespace goodsim::models::straggler
