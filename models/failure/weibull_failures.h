// weibull_failures: every chip has Weibull-distributed lifetimes (up-time
// until its next failure), CDF 1 - exp(-(t/scale)^shape). shape < 1 is the
// decreasing hazard seen in field data (LANL: ~0.7-0.8), shape = 1 the
// exponential, shape > 1 wear-out. The chip's age resets on repair: a
// repaired chip draws a fresh lifetime. Repair times, lemons and root causes
// work as in exponential_failures.
//
// Parameters: `shape` > 0 and exactly one of `scale` or `mtbf` (the mean
// lifetime, mtbf = scale * Gamma(1 + 1/shape)). A lemon ages
// `lemon_multiplier` times as fast (its lifetimes are divided by the
// multiplier), so its failure rate is multiplied by it (exactly when repairs
// are short next to lifetimes).
//
// Start (`initial_age`): "stationary" (default) gives each chip at t = 0 the
// remaining life of a chip that has run for a long time (the equilibrium
// forward-recurrence time, density S(t) / mtbf, sampled as
// scale * G^(1/shape) with G ~ Gamma(1/shape)), so the fleet failure rate is
// constant from the start; "new" starts every chip at age 0 (a fresh
// build-out: with shape < 1, a burst of early failures).
//
// Method (fast at millions of chips): the next lifetime end of every chip
// whose clock runs sits in one 4-ary min-heap (lifetime_heap.h), 16 bytes per
// chip, and the injector keeps exactly ONE pending engine event, at the
// earliest end. When it fires, every entry due now is handled: O(log N) per
// failure, O(N) to build at start; events grow with failures, not chips.
// A chip under its own repair is out of the heap; the repair pushes a fresh
// lifetime, re-arming the event if that is now the earliest.
//
// A chip that is down from ANOTHER outage (host, site, other injector) when
// its lifetime ends cannot fail: that failure is pre-empted, the outage is
// treated as a renewal (the chip was serviced while down) and a fresh
// lifetime starts at that moment. With shape = 1 this is exactly the thinning
// of exponential_failures, so both injectors agree in law.
//
// Draws from the stream, in order: the lemon set (only when lemon_fraction >
// 0); one initial lifetime per chip in id order; per lifetime end: a fresh
// lifetime if pre-empted, else the cause (only with several causes) and the
// repair time; per repair: the fresh lifetime.
#pragma once

#include <optional>
#include <string>

#include "models/failure/cause_mix.h"
#include "models/failure/lemon_injector.h"
#include "models/failure/lifetime_heap.h"
#include "sim/core/distributions.h"
#include "sim/scenario/reader.h"

namespace goodsim::models::failure {

struct WeibullFailuresConfig {
  double shape = 1;                  // > 0
  double scale_s = 365.0 * 86400.0;  // > 0, seconds
  bool stationary_start = true;      // initial_age: "stationary" (true) or "new"
  core::Distribution repair_time = core::Distribution::fixed(3600);  // seconds
  double lemon_fraction = 0;
  double lemon_multiplier = 1;
  CauseMix causes = CauseMix::single("unspecified");

  double mtbf_s() const { return core::weibull_mean(shape, scale_s); }
  const core::Distribution& repair_law() const { return repair_time; }
  // The model's expected_use (environment_model.h) with these parameters.
  ResourceUse expected_use(const cluster::Layout& layout, core::Duration horizon) const;
  static WeibullFailuresConfig from_json(scenario::ObjectReader& r);
};

// Sample of Gamma(a, 1) (Marsaglia & Tsang 2000; for a < 1 via
// Gamma(a + 1) * U^(1/a)). REQUIRES: a > 0.
double gamma_unit(core::Rng& rng, double a);

class WeibullFailures : public LemonInjector<WeibullFailuresConfig> {
 public:
  using LemonInjector::LemonInjector;
  void start(RunContext& ctx) override;
  // Lifetime ends that hit a chip already down from another outage.
  uint64_t preempted() const { return preempted_; }

 private:
  double lifetime_s(cluster::ChipId chip);
  double initial_lifetime_s(cluster::ChipId chip);
  int64_t end_of_life_ns(double lifetime_s) const;
  void on_clock();
  void on_repaired(cluster::ChipId chip);
  void arm();

  LifetimeHeap heap_;
  core::HandlerId clock_handler_ = 0;
  bool pending_ = false;
  core::EventId pending_id_;
  int64_t pending_ns_ = 0;
  uint64_t preempted_ = 0;
};

}  // namespace goodsim::models::failure
