#include "models/straggler/transient_stragglers.h"

#include <fmt/format.h>

#include "sim/scenario/distribution_reader.h"
#include "sim/scenario/error.h"

namespace goodsim::models::straggler {

TransientStragglersConfig TransientStragglersConfig::from_json(scenario::ObjectReader& r) {
  TransientStragglersConfig c;
  c.mtbe = r.duration("mtbe", "mean nominal-speed time of one unit between slowdown episodes",
                      core::Duration::nanos(1));
  c.duration = scenario::duration_distribution(r, "duration", "length of one episode");
  c.factor = read_factor_law(r, std::nullopt, "a unit during an episode");
  const std::string domain = r.choice(
      "domain", {"chip", "host", "slice", "learner"}, "chip",
      "unit that has episodes: chip, host, slice, or learner (all slices of one learner's share "
      "at once, as a whole-slice speed)");
  const auto learners = r.optional_count(
      "learners",
      "with domain \"learner\": the number of learners M; learner k is the k-th contiguous "
      "near-equal share of the member slices, where decoupled_diloco and diloco put theirs",
      1, UINT32_MAX);
  if (r.describing()) return c;
  if (domain == "learner") {
    if (!learners) r.fail("learners", "domain \"learner\" needs \"learners\" (the number M)");
    c.learners = static_cast<uint32_t>(*learners);
  } else {
    if (learners) r.fail("learners", "is only for domain \"learner\"");
    c.domain = domain == "host" ? cluster::Domain::kHost
             : domain == "slice" ? cluster::Domain::kSlice : cluster::Domain::kChip;
  }
  return c;
}

TransientStragglersConfig TransientStragglersConfig::from_json(scenario::ObjectReader& r,
                                                               const ParseContext& ctx) {
  TransientStragglersConfig c = from_json(r);
  if (ctx.layout == nullptr || r.describing() || !c.per_learner()) return c;
  const uint32_t members = ctx.layout->slices() - ctx.layout->spare_slices();
  if (c.learners > members) {
    r.fail("learners", fmt::format("{} learners do not fit the {} member slices (slices - "
                                   "spare_slices)", c.learners, members));
  }
  return c;
}

void TransientStragglers::start(RunContext& ctx) {
  bind(ctx);
  units_ = config_.per_learner() ? config_.learners : ctx.layout().count(config_.domain);
  if (config_.per_learner()) {
    const cluster::Layout& l = ctx.layout();
    if (config_.learners > l.slices() - l.spare_slices()) {
      throw scenario::ScenarioError("", stream_ + ".learners",
                                    fmt::format("{} learners do not fit the {} member slices",
                                                config_.learners, l.slices() - l.spare_slices()));
    }
    learner_slowdowns_.assign(config_.learners, {});
  }
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
  cluster::SlowdownId id;
  if (config_.per_learner()) {
    slow_learner(unit, factor);
  } else {
    const auto target = cluster::SlowdownTarget::of(config_.domain, unit);
    id = ctx_->cluster.add_slowdown(target, factor, cluster::SlowdownMode::kSlowest,
                                    ctx_->sim.now());
  }
  ctx_->log("slowdown_start", [&] {
    return nlohmann::json{{"domain", domain_label()},
                          {"id", unit},
                          {"factor", factor},
                          {"duration_s", length.seconds_f()}};
  });
  ctx_->sim.schedule_in(length, core::kBandRepair, end_handler_, unit, id.value());
}

void TransientStragglers::on_end(uint32_t unit, uint64_t slowdown) {
  set_episode(unit, false);
  if (config_.per_learner()) {
    slow_learner(unit, 0);
  } else {
    ctx_->cluster.remove_slowdown(cluster::SlowdownId::from_value(slowdown), ctx_->sim.now());
  }
  ctx_->log("slowdown_end", [&] { return nlohmann::json{{"domain", domain_label()}, {"id", unit}}; });
}

void TransientStragglers::slow_learner(uint32_t unit, double factor) {
  std::vector<cluster::SlowdownId>& ids = learner_slowdowns_[unit];
  for (const cluster::SlowdownId id : ids) ctx_->cluster.remove_slowdown(id, ctx_->sim.now());
  ids.clear();
  if (factor == 0) return;
  const LearnerShare share = learner_share(ctx_->layout(), config_.learners, unit);
  for (cluster::SliceId s = share.first; s < share.end; ++s) {
    ids.push_back(ctx_->cluster.add_slowdown(cluster::SlowdownTarget::slice(s), factor,
                                             cluster::SlowdownMode::kScale, ctx_->sim.now()));
  }
}

const char* TransientStragglers::domain_label() const {
  return config_.per_learner() ? "learner" : cluster::domain_name(config_.domain);
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
ResourceUse TransientStragglersConfig::expected_use(const cluster::Layout& layout,
                                                    core::Duration horizon) const {
  const auto units = static_cast<double>(per_learner() ? learners : layout.count(domain));
  return {2 * units * horizon.seconds_f() / mtbe.seconds_f(), units / 8};
}

}  // namespace goodsim::models::straggler
