#include "models/straggler/job_slowdown.h"

#include <cmath>

namespace goodsim::models::straggler {

FactorLaw JobSlowdownConfig::bytedance_law() {
  // Quantile fit of the excess: P(excess > 0.1) = 0.425, P(excess > 0.2706) = 0.10.
  return {core::Distribution::lognormal(std::log(0.0842), 0.91)};
}

JobSlowdownConfig JobSlowdownConfig::from_json(scenario::ObjectReader& r) {
  return {read_factor_law(r, bytedance_law(), "the whole job (drawn once per run)")};
}

void JobSlowdown::start(RunContext& ctx) {
  core::Rng& rng = bind(ctx);
  factor_ = config_.factor.sample(rng);
  ctx.cluster.add_slowdown(cluster::SlowdownTarget::all(), factor_, cluster::SlowdownMode::kScale,
                           ctx.sim.now());
  ctx.log("job_slowdown", {{"factor", factor_}});
}


// One fleet-wide slowdown, applied at start.
ResourceUse JobSlowdownConfig::expected_use(const cluster::Layout& /*layout*/,
                                            core::Duration /*horizon*/) const {
  return {1, 0};
}

}  // namespace goodsim::models::straggler
