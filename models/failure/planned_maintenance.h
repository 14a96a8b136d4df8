// planned_maintenance: a separate stream of scheduled interruptions. Window i
// (i = 0, 1, ...) opens at start + i * interval + U_i, with U_i uniform on
// [0, jitter) (0 without jitter), and takes `units_per_window` units of
// `domain` down at once; each stays down for its own draw of `duration`.
// Windows open while their time is at most `end` (when given).
//
// Which units: "rolling" (default) walks through the units in id order,
// window i taking units i*k .. i*k+k-1 (mod the unit count), so every unit is
// serviced once per count/k windows; "random" takes k distinct units
// uniformly (Floyd's algorithm). k may not exceed the number of units.
// A unit still down from an earlier window or from a failure is taken down
// again: outages stack, and the unit is up when the last one ends.
//
// The cause is "planned" unless `causes` says otherwise. jitter <= interval
// keeps the windows in order. Exactly one pending event (the next window).
// Draws from the stream, per window: its jitter (when jitter > 0, drawn when
// the window is scheduled), the random units (order "random"), then per unit
// the cause (only with several causes) and the duration.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "models/failure/cause_mix.h"
#include "models/failure/outage_injector.h"
#include "models/parse_context.h"
#include "sim/core/distributions.h"
#include "sim/scenario/reader.h"

namespace goodsim::models::failure {

struct PlannedMaintenanceConfig {
  cluster::Domain domain = cluster::Domain::kHost;
  core::Duration interval = core::Duration::days(7);  // > 0
  std::optional<core::Duration> start;                // first window; default: one interval
  core::Duration jitter = core::Duration::zero();     // in [0, interval]
  std::optional<core::Duration> end;                  // no window opens after it
  uint64_t units_per_window = 1;                      // >= 1
  bool random_order = false;                          // "random" vs "rolling"
  core::Distribution duration = core::Distribution::fixed(3600);  // seconds
  CauseMix causes = CauseMix::single("planned");

  core::Duration first_window() const { return start.value_or(interval); }
  const core::Distribution& repair_law() const { return duration; }
  // The model's expected_use (environment_model.h) with these parameters.
  ResourceUse expected_use(const cluster::Layout& layout, core::Duration horizon) const;
  // With a layout in `ctx`, units_per_window must not exceed the domain's units.
  static PlannedMaintenanceConfig from_json(scenario::ObjectReader& r,
                                            const ParseContext& ctx = {});
};

class PlannedMaintenance : public OutageInjector<PlannedMaintenanceConfig> {
 public:
  using OutageInjector::OutageInjector;
  void start(RunContext& ctx) override;
  uint64_t windows() const { return windows_; }

 private:
  void schedule_window(uint64_t index);
  void on_window();

  uint64_t units_ = 0;
  uint64_t per_window_ = 0;
  uint64_t windows_ = 0;     // windows opened so far
  uint64_t cursor_ = 0;      // next unit of the rolling order
  core::HandlerId window_handler_ = 0;
};

}  // namespace goodsim::models::failure
