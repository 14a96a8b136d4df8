// domain_failures: correlated failures of whole failure domains — every host,
// slice or site (`domain`) fails independently after an exponentially
// distributed up-time with mean `mtbf` (per unit), taking all of its chips
// down at once until it is repaired after `repair_time` (a distribution).
// Models power, network or cooling events; give their mix as `causes`
// (e.g. {"power": 0.5, "network": 0.3, "cooling": 0.2}).
//
// Sampled by superposition, like exponential_failures: one clock at rate
// units / mtbf; each arrival picks a unit uniformly and fails it, unless that
// unit is still down from this injector's own previous failure (thinning),
// which makes every unit an exact alternating renewal process (Exp(mtbf) up,
// repair down). A unit's failure does not depend on outages from other
// sources: a host can lose power while one of its chips is being repaired, and
// outages stack (a chip is up only when no outage covers it).
//
// Draws from the stream, per arrival: the unit, the next gap; per failure:
// the cause (only with several causes), the repair time.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/failure/cause_mix.h"
#include "models/failure/outage_injector.h"
#include "sim/core/distributions.h"
#include "sim/scenario/reader.h"

namespace goodsim::models::failure {

struct DomainFailuresConfig {
  cluster::Domain domain = cluster::Domain::kHost;  // host, slice or site
  core::Duration mtbf = core::Duration::days(365);  // mean up-time of one unit
  core::Distribution repair_time = core::Distribution::fixed(3600);  // seconds
  CauseMix causes = CauseMix::single("unspecified");

  const core::Distribution& repair_law() const { return repair_time; }
  // The model's expected_use (environment_model.h) with these parameters.
  ResourceUse expected_use(const cluster::Layout& layout, core::Duration horizon) const;
  static DomainFailuresConfig from_json(scenario::ObjectReader& r);
};

class DomainFailures : public OutageInjector<DomainFailuresConfig> {
 public:
  using OutageInjector::OutageInjector;
  void start(RunContext& ctx) override;

 private:
  void schedule_next_arrival();
  void on_arrival();

  uint64_t units_ = 0;
  double mean_gap_s_ = 0;
  std::vector<uint8_t> down_;  // per unit: in this injector's own repair
  core::HandlerId arrival_handler_ = 0;
};

}  // namespace goodsim::models::failure
