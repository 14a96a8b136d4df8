#include "models/failure/weibull_failures.h"

#include <cmath>
#include <utility>
#include <vector>

#include "models/enum_choice.h"

#include "sim/scenario/distribution_reader.h"
#include "sim/scenario/units.h"

namespace goodsim::models::failure {

WeibullFailuresConfig WeibullFailuresConfig::from_json(scenario::ObjectReader& r) {
  WeibullFailuresConfig c;
  c.shape = r.unit("1").number("shape", "Weibull shape k (< 1: decreasing hazard, 1: exponential)");
  if (!r.describing() && !(c.shape > 0)) {
    r.fail("shape", "expected a number > 0, got " + scenario::format_number(c.shape));
  }
  const auto scale = r.optional_duration("scale", "Weibull scale (give scale or mtbf)",
                                         core::Duration::nanos(1));
  const auto mtbf = r.optional_duration(
      "mtbf", "mean lifetime = scale * Gamma(1 + 1/shape) (give scale or mtbf)",
      core::Duration::nanos(1));
  c.stationary_start = read_enum(r, "initial_age", {{"stationary", true}, {"new", false}},
                                 c.stationary_start,
                                 "chip ages at t = 0: long-running fleet, or all new");
  c.repair_time = scenario::duration_distribution(r, "repair_time", core::Duration::hours(1),
                                                  "time until a failed chip is back");
  c.lemon_fraction = r.fraction("lemon_fraction", 0.0, "share of chips that are lemons");
  c.lemon_multiplier = r.unit("x").number("lemon_multiplier", 1.0,
                                "how many times faster a lemon ages (its rate multiplier)", 1.0);
  c.causes = CauseMix::from_json(r, "causes", "unspecified");
  if (r.describing()) return c;
  if (scale.has_value() == mtbf.has_value()) {
    r.fail(scale ? "mtbf" : "", "give exactly one of \"scale\" and \"mtbf\"");
  }
  c.scale_s = scale ? scale->seconds_f() : mtbf->seconds_f() / std::tgamma(1.0 + 1.0 / c.shape);
  if (!(c.scale_s > 0) || !std::isfinite(c.mtbf_s())) {
    r.fail("shape", "shape " + scenario::format_number(c.shape) + " gives no finite mean lifetime");
  }
  return c;
}

double gamma_unit(core::Rng& rng, double a) {
  if (a < 1) return gamma_unit(rng, a + 1) * std::pow(rng.uniform_pos01(), 1.0 / a);
  const double d = a - 1.0 / 3.0;
  const double c = 1.0 / std::sqrt(9.0 * d);
  while (true) {
    double x = 0, v = 0;
    do {
      x = core::standard_normal(rng);
      v = 1.0 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const double u = rng.uniform_pos01();
    if (std::log(u) < 0.5 * x * x + d - d * v + d * std::log(v)) return d * v;
  }
}

double WeibullFailures::lifetime_s(cluster::ChipId chip) {
  const double scale = lemons_.contains(chip) ? config_.scale_s / config_.lemon_multiplier
                                              : config_.scale_s;
  return core::weibull(*rng_, config_.shape, scale);
}

double WeibullFailures::initial_lifetime_s(cluster::ChipId chip) {
  if (!config_.stationary_start) return lifetime_s(chip);
  const double scale = lemons_.contains(chip) ? config_.scale_s / config_.lemon_multiplier
                                              : config_.scale_s;
  return scale * std::pow(gamma_unit(*rng_, 1.0 / config_.shape), 1.0 / config_.shape);
}

int64_t WeibullFailures::end_of_life_ns(double lifetime_s) const {
  return (ctx_->sim.now() + core::Duration::from_seconds(lifetime_s)).ns();
}

void WeibullFailures::start(RunContext& ctx) {
  bind(ctx);
  const uint64_t chips = ctx.layout().chips();
  choose_lemons();
  std::vector<LifetimeHeap::Entry> entries(chips);
  for (uint64_t c = 0; c < chips; ++c) {
    const auto chip = static_cast<cluster::ChipId>(c);
    entries[c] = {end_of_life_ns(initial_lifetime_s(chip)), chip};
  }
  heap_.build(std::move(entries));
  clock_handler_ = add_handler("clock", [this](const core::Event&) { on_clock(); });
  start_outages([this](cluster::Domain, uint32_t id) {
    on_repaired(static_cast<cluster::ChipId>(id));
  });
  arm();
}

void WeibullFailures::on_clock() {
  pending_ = false;
  const int64_t now = ctx_->sim.now().ns();
  while (!heap_.empty() && heap_.top().time_ns <= now) {
    const cluster::ChipId chip = heap_.top().chip;
    if (ctx_->cluster.chip_up(chip)) {
      heap_.pop();
      outages_.begin(cluster::Domain::kChip, chip);
    } else {
      ++preempted_;  // down from another outage: renewal, fresh lifetime from now
      heap_.replace_top({end_of_life_ns(lifetime_s(chip)), chip});
    }
  }
  arm();
}

void WeibullFailures::on_repaired(cluster::ChipId chip) {
  heap_.push({end_of_life_ns(lifetime_s(chip)), chip});
  arm();
}

void WeibullFailures::arm() {
  if (heap_.empty()) return;
  const int64_t next = heap_.top().time_ns;
  if (next == core::SimTime::max().ns()) return;  // every clock ends beyond the time range
  if (pending_) {
    if (next >= pending_ns_) return;
    ctx_->sim.cancel(pending_id_);
  }
  pending_id_ = ctx_->sim.schedule_at(core::SimTime::from_ns(next), core::kBandFailure,
                                      clock_handler_);
  pending_ns_ = next;
  pending_ = true;
}


// One clock event per failure and one repair; a lifetime heap entry per chip.
ResourceUse WeibullFailuresConfig::expected_use(const cluster::Layout& layout,
                                                core::Duration horizon) const {
  const auto chips = static_cast<double>(layout.chips());
  const double f = lemon_fraction;
  const double rate = chips * (1 - f + f * lemon_multiplier) / mtbf_s();
  return {2 * rate * horizon.seconds_f() + 1,
          chips * sizeof(LifetimeHeap::Entry) + LemonSet::bytes_for(layout.chips(), f)};
}

}  // namespace goodsim::models::failure
