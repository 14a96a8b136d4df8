#include "models/failure/planned_maintenance.h"

#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include "models/enum_choice.h"
#include "models/failure/domain_failures.h"
#include "models/failure/lemon_set.h"
#include "sim/scenario/distribution_reader.h"
#include "sim/scenario/units.h"

namespace goodsim::models::failure {

PlannedMaintenanceConfig PlannedMaintenanceConfig::from_json(scenario::ObjectReader& r,
                                                             const ParseContext& ctx) {
  PlannedMaintenanceConfig c;
  c.domain = read_enum(r, "domain",
                       domain_options({cluster::Domain::kChip, cluster::Domain::kHost,
                                       cluster::Domain::kSlice, cluster::Domain::kSite}),
                       c.domain, "the units taken down");
  c.interval = r.duration("interval", "time between the starts of two windows",
                          core::Duration::nanos(1));
  c.start = r.optional_duration("start", "opening of the first window (default: one interval)");
  c.jitter = r.duration("jitter", core::Duration::zero(),
                        "each window opens up to this much after its scheduled time");
  c.end = r.optional_duration("end", "no window opens after this time (default: none)");
  c.units_per_window = static_cast<uint64_t>(
      r.count("units_per_window", 1, "units taken down per window", 1));
  c.random_order = read_enum(r, "order", {{"rolling", false}, {"random", true}}, c.random_order,
                             "rolling: units in id order, window after window; random: "
                             "distinct units drawn per window");
  c.duration = scenario::duration_distribution(r, "duration", "how long each unit stays down");
  c.causes = CauseMix::from_json(r, "causes", "planned");
  if (r.describing()) return c;
  if (c.jitter > c.interval) {
    r.fail("jitter", "must not exceed interval (" + scenario::format_duration(c.interval) + ")");
  }
  const uint64_t units = ctx.layout ? ctx.layout->count(c.domain) : c.units_per_window;
  if (c.units_per_window > units) {
    r.fail("units_per_window",
           fmt::format("expected at most {} (the {} count of the cluster), got {}", units,
                       cluster::domain_name(c.domain), c.units_per_window));
  }
  return c;
}

void PlannedMaintenance::start(RunContext& ctx) {
  bind(ctx);
  units_ = ctx.layout().count(config_.domain);
  per_window_ = std::min(config_.units_per_window, units_);
  window_handler_ = add_handler("window", [this](const core::Event&) { on_window(); });
  start_outages();
  schedule_window(0);
}

void PlannedMaintenance::schedule_window(uint64_t index) {
  // Window times are computed from the index, never accumulated, so no drift.
  const int64_t room = (core::Duration::max() - config_.first_window()).ns();
  if (static_cast<uint64_t>(room / config_.interval.ns()) < index) return;  // beyond time range
  core::SimTime at = core::SimTime::zero() + config_.first_window() +
                     config_.interval * static_cast<int64_t>(index);
  if (config_.jitter > core::Duration::zero()) {
    at += core::Duration::from_seconds(core::uniform(*rng_, 0.0, config_.jitter.seconds_f()));
  }
  if (config_.end && at > core::SimTime::zero() + *config_.end) return;
  ctx_->sim.schedule_at(at, core::kBandFailure, window_handler_);
}

void PlannedMaintenance::on_window() {
  if (config_.random_order) {
    for (const uint32_t unit : choose_distinct(*rng_, units_, per_window_)) {
      outages_.begin(config_.domain, unit);
    }
  } else {
    for (uint64_t i = 0; i < per_window_; ++i) {
      outages_.begin(config_.domain, static_cast<uint32_t>(cursor_));
      cursor_ = (cursor_ + 1) % units_;
    }
  }
  ++windows_;
  schedule_window(windows_);
}


// One event per window opening, and an outage start and end per unit it takes down.
ResourceUse PlannedMaintenanceConfig::expected_use(const cluster::Layout& layout,
                                                   core::Duration horizon) const {
  const core::Duration span = end ? std::min(*end, horizon) : horizon;
  const double windows =
      std::max(0.0, (span - first_window()).seconds_f() / interval.seconds_f() + 1);
  const auto per_window = static_cast<double>(
      std::min(units_per_window, layout.count(domain)));
  return {windows * (1 + 2 * per_window), 0};
}

}  // namespace goodsim::models::failure
