#include "models/straggler/persistent_stragglers.h"

#include <cmath>

namespace goodsim::models::straggler {
namespace {

// Units skipped before the next slow one: Geometric(p) failures before a
// success, by inversion. Returns a value >= `limit` when the next slow unit
// lies beyond it. REQUIRES: 0 < p < 1.
uint64_t geometric_skip(core::Rng& rng, double p, uint64_t limit) {
  const double skip = std::floor(std::log(rng.uniform_pos01()) / std::log1p(-p));
  return skip >= static_cast<double>(limit) ? limit : static_cast<uint64_t>(skip);
}

}  // namespace

PersistentStragglersConfig PersistentStragglersConfig::from_json(scenario::ObjectReader& r) {
  PersistentStragglersConfig c;
  c.fraction = r.fraction("fraction", "probability that a unit is slow for the whole run");
  // BLOOM-176B: one slow node cost about 5% of the whole job.
  c.factor = read_factor_law(r, FactorLaw::fixed(1.05), "a slow unit");
  c.domain = read_unit_domain(r, "unit that can be slow: chip, host or slice");
  return c;
}

void PersistentStragglers::start(RunContext& ctx) {
  core::Rng& rng = bind(ctx);
  const uint64_t units = ctx.layout().count(config_.domain);
  if (config_.fraction <= 0) return;
  const bool all = config_.fraction >= 1;
  for (uint64_t u = all ? 0 : geometric_skip(rng, config_.fraction, units); u < units;
       u += 1 + (all ? 0 : geometric_skip(rng, config_.fraction, units))) {
    const double factor = config_.factor.sample(rng);
    const auto target = cluster::SlowdownTarget::of(config_.domain, static_cast<uint32_t>(u));
    ctx.cluster.add_slowdown(target, factor, cluster::SlowdownMode::kSlowest, ctx.sim.now());
    ++slow_units_;
  }
  ctx.log("persistent_stragglers", {{"domain", cluster::domain_name(config_.domain)},
                                    {"slow_units", slow_units_}});
}


// One slowdown per slow unit, applied at start.
ResourceUse PersistentStragglersConfig::expected_use(const cluster::Layout& layout,
                                                     core::Duration /*horizon*/) const {
  return {fraction * static_cast<double>(layout.count(domain)), 0};
}

}  // namespace goodsim::models::straggler
