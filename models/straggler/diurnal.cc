#include "models/straggler/diurnal.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace goodsim::models::straggler {
namespace {

// Phase 2 pi (t - peak) / period, reduced modulo one period first so that it
// stays exact over long runs.
double phase(const DiurnalConfig& c, core::SimTime t) {
  int64_t x = (t - (core::SimTime::zero() + c.peak)).ns() % c.period.ns();
  if (x < 0) x += c.period.ns();
  return 2 * std::numbers::pi * static_cast<double>(x) / static_cast<double>(c.period.ns());
}

}  // namespace

DiurnalConfig DiurnalConfig::from_json(scenario::ObjectReader& r) {
  DiurnalConfig c;
  c.amplitude = r.fraction("amplitude", c.amplitude, "peak-to-trough swing of step time (Llama 3: 1-2%)");
  c.period = r.duration("period", c.period, "length of one cycle", core::Duration::seconds(1));
  c.resolution = r.duration("resolution", c.resolution,
                            "update step; each step uses the exact average of the swing",
                            core::Duration::millis(1));
  c.peak = r.duration("peak", c.peak, "time within a period when steps are slowest (t = 0 is midnight)");
  if (!r.describing() && c.resolution > c.period) r.fail("resolution", "must not exceed period");
  return c;
}

double DiurnalConfig::factor_at(core::SimTime t) const {
  return std::max(1.0, 1 + amplitude * (1 + std::cos(phase(*this, t))) / 2);
}

double DiurnalConfig::average(core::SimTime from, core::SimTime to) const {
  // The mean of cos over [a, b] is (sin b - sin a) / (b - a).
  const double width = 2 * std::numbers::pi * (to - from).seconds_f() / period.seconds_f();
  const double a = phase(*this, from);
  const double mean_cos = (std::sin(a + width) - std::sin(a)) / width;
  return std::max(1.0, 1 + amplitude * (1 + mean_cos) / 2);  // rounding may dip below 1
}

void Diurnal::start(RunContext& ctx) {
  bind(ctx);  // draws nothing: the stream names its handler
  step_handler_ = add_handler("step", [this](const core::Event&) { on_step(); });
  const core::SimTime now = ctx.sim.now();
  id_ = ctx.cluster.add_slowdown(cluster::SlowdownTarget::all(),
                                 config_.average(now, now + config_.resolution),
                                 cluster::SlowdownMode::kScale, now);
  ctx.sim.schedule_in(config_.resolution, core::kBandFailure, step_handler_);
}

void Diurnal::on_step() {
  const core::SimTime now = ctx_->sim.now();
  ctx_->cluster.update_slowdown(id_, config_.average(now, now + config_.resolution), now);
  ctx_->sim.schedule_in(config_.resolution, core::kBandFailure, step_handler_);
}


// One update per resolution step.
ResourceUse DiurnalConfig::expected_use(const cluster::Layout& /*layout*/,
                                        core::Duration horizon) const {
  return {horizon.seconds_f() / resolution.seconds_f() + 1, 0};
}

}  // namespace goodsim::models::straggler
