#include "models/policy/checkpoint_config.h"

#include <cmath>

#include "models/enum_choice.h"

namespace goodsim::models::policy {
namespace {

CheckpointConfig::Interval parse_interval(scenario::ObjectReader& c, core::Duration& fixed) {
  const nlohmann::json& v = c.raw("interval", "compute time between checkpoints: a duration, "
                                  "\"young\", \"daly\" or \"none\"");
  if (v.is_string() && (v == "young" || v == "daly" || v == "none")) {
    return v == "young" ? CheckpointConfig::Interval::kYoung
           : v == "daly" ? CheckpointConfig::Interval::kDaly
                         : CheckpointConfig::Interval::kNone;
  }
  if (v.is_null() && c.describing()) return CheckpointConfig::Interval::kNone;
  if (v.is_null()) c.fail("interval", "expected a duration, \"young\", \"daly\" or \"none\"");
  fixed = c.duration("interval", core::Duration::zero(), "", core::Duration::nanos(1));
  return CheckpointConfig::Interval::kFixed;
}

}  // namespace

CheckpointConfig CheckpointConfig::from_json(scenario::ObjectReader& policy) {
  CheckpointConfig cfg;
  auto c = policy.optional_object("checkpoint", "checkpointing; absent: perfect (completed "
                                  "steps are never lost)");
  if (!c) return cfg;
  cfg.interval = parse_interval(*c, cfg.fixed_interval);
  cfg.write_time = c->duration("write_time", core::Duration::seconds(40),
                               "time to write one checkpoint (blocking, or in the background)");
  cfg.async = read_enum(*c, "mode", {{"blocking", false}, {"async", true}}, cfg.async,
                        "how writes affect training");
  cfg.snapshot_time = c->duration("snapshot_time", core::Duration::zero(),
                                  "async: pause to snapshot state before the background write");
  cfg.mtti = c->optional_duration("mtti", "job's mean time to interrupt for young/daly "
                                  "(default: estimated online)", core::Duration::nanos(1));
  return cfg;
}

core::Duration young_interval(core::Duration delta, core::Duration mtti) {
  return core::Duration::from_seconds(std::sqrt(2.0 * delta.seconds_f() * mtti.seconds_f()));
}

core::Duration daly_interval(core::Duration delta, core::Duration mtti) {
  const double d = delta.seconds_f(), m = mtti.seconds_f();
  if (d >= 2.0 * m) return mtti;
  const double x = d / (2.0 * m);
  const double tau = std::sqrt(2.0 * d * m) * (1.0 + std::sqrt(x) / 3.0 + x / 9.0) - d;
  return core::Duration::from_seconds(tau);
}

}  // namespace goodsim::models::policy
