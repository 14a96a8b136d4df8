#include "models/policy/elastic_spec.h"

#include <string>

#include "models/enum_choice.h"

namespace goodsim::models::policy {

ElasticSpec read_elastic_spec(scenario::ObjectReader& r, std::optional<uint32_t> max_slices) {
  ElasticSpec e;
  e.downscale_time = r.duration("downscale_time", core::Duration::seconds(30),
                                "pause when a slice leaves (\"tens of seconds\" in practice)");
  e.upscale_time = r.duration("upscale_time", core::Duration::seconds(30),
                              "pause when a slice returns");
  e.restart_time = r.duration("restart_time", core::Duration::minutes(5),
                              "restart after falling below min_slices");
  e.min_slices = static_cast<uint32_t>(
      r.count("min_slices", 1, "fewest slices to keep training with", 1, UINT32_MAX));
  if (max_slices && e.min_slices > *max_slices) {
    r.fail("min_slices", "min_slices (" + std::to_string(e.min_slices) + ") exceeds the " +
                             std::to_string(*max_slices) + " slices available");
  }
  read_resize_rules(r, e);
  return e;
}

void read_resize_rules(scenario::ObjectReader& r, ElasticSpec& e) {
  e.resize_per_slice = r.duration("resize_per_slice", core::Duration::zero(),
                                  "added to a downscale or upscale pause per slice that changed");
  using Pause = ElasticSpec::DuringPause;
  e.during_pause = read_enum(
      r, "during_pause",
      {{"coalesce", Pause::kCoalesce}, {"extend", Pause::kExtend}, {"restart", Pause::kRestart}},
      e.during_pause,
      "a slice change during a pause: coalesce (the pause under way takes it in), extend "
      "(it also grows by pause_extension) or restart (the pause begins again)");
  e.pause_extension = r.duration("pause_extension", core::Duration::seconds(5),
                                 "extend: added to the pause under way per change during it");
  e.upscale_every = r.optional_duration("upscale_every", "returning slices rejoin together at "
                                        "the next multiple of this period (default: at once)",
                                        core::Duration::nanos(1));
  if (auto n = r.optional_count("upscale_batch", "returning slices rejoin once this many wait "
                                "(default: at once, or at the upscale_every window)", 1,
                                UINT32_MAX)) {
    e.upscale_batch = static_cast<uint32_t>(*n);
  }
}

}  // namespace goodsim::models::policy
