#include "models/failure/domain_failures.h"

#include <utility>

#include "models/enum_choice.h"
#include "sim/scenario/distribution_reader.h"

namespace goodsim::models::failure {

DomainFailuresConfig DomainFailuresConfig::from_json(scenario::ObjectReader& r) {
  DomainFailuresConfig c;
  c.domain = read_enum<cluster::Domain>(
      r, "domain",
      domain_options({cluster::Domain::kHost, cluster::Domain::kSlice, cluster::Domain::kSite}),
      "the failure domain: every unit of it fails as a whole");
  c.mtbf = r.duration("mtbf", "mean up-time of one unit between failures",
                      core::Duration::nanos(1));
  c.repair_time = scenario::duration_distribution(r, "repair_time", core::Duration::hours(1),
                                                  "time until a failed unit is back");
  c.causes = CauseMix::from_json(r, "causes", "unspecified");
  return c;
}

void DomainFailures::start(RunContext& ctx) {
  bind(ctx);
  units_ = ctx.layout().count(config_.domain);
  mean_gap_s_ = config_.mtbf.seconds_f() / static_cast<double>(units_);
  down_.assign(units_, 0);
  arrival_handler_ = add_handler("arrival", [this](const core::Event&) { on_arrival(); });
  start_outages([this](cluster::Domain, uint32_t id) { down_[id] = 0; });
  schedule_next_arrival();
}

void DomainFailures::schedule_next_arrival() {
  const double gap_s = core::exponential(*rng_, mean_gap_s_);
  ctx_->sim.schedule_in(core::Duration::from_seconds(gap_s), core::kBandFailure,
                        arrival_handler_);
}

void DomainFailures::on_arrival() {
  const auto unit = static_cast<uint32_t>(rng_->below(units_));
  schedule_next_arrival();
  if (down_[unit] != 0) return;  // thinning: still in its own repair
  down_[unit] = 1;
  outages_.begin(config_.domain, unit);
}


// Arrivals at the units' total rate, and as many repairs; one flag per unit.
ResourceUse DomainFailuresConfig::expected_use(const cluster::Layout& layout,
                                               core::Duration horizon) const {
  const auto units = static_cast<double>(layout.count(domain));
  return {2 * units * horizon.seconds_f() / mtbf.seconds_f(), units};
}

}  // namespace goodsim::models::failure
