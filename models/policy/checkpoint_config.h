// Checkpointing of a synchronous job: how often, and what a write costs.
//
// Without a "checkpoint" object the job checkpoints perfectly: completed steps
// are never lost, only the step in flight (an idealised bound). With one, the
// interval is "none" (nothing is ever saved: a failure loses all progress) or
// counts compute time between checkpoints. It is fixed, or
// optimal for the job's mean time to interrupt M and the checkpoint cost
// delta: Young (1974) tau = sqrt(2 delta M); Daly (2006)
//   tau = sqrt(2 delta M) [1 + sqrt(delta / 2M) / 3 + (delta / 2M) / 9] - delta
// for delta < 2M, else tau = M. When M is not given it is estimated online as
// the time elapsed per interruption seen so far (the horizon before the first).
//
// Writes are blocking (training pauses for write_time, charged `checkpoint`;
// a failure during the write loses it) or asynchronous (training pauses only
// for snapshot_time; the write finishes write_time later in the background and
// a failure before then loses it).
#pragma once

#include <optional>

#include "sim/core/time.h"
#include "sim/scenario/reader.h"

namespace goodsim::models::policy {

struct CheckpointConfig {
  enum class Interval { kPerfect, kNone, kFixed, kYoung, kDaly };

  Interval interval = Interval::kPerfect;
  core::Duration fixed_interval;       // kFixed
  core::Duration write_time;           // time to persist one checkpoint
  bool async = false;
  core::Duration snapshot_time;        // async: blocking part of a write
  std::optional<core::Duration> mtti;  // job's mean time to interrupt (young/daly)

  // Reads the optional "checkpoint" object of a policy entry.
  static CheckpointConfig from_json(scenario::ObjectReader& policy);
  // The blocking cost of one checkpoint (delta in the formulas).
  core::Duration blocking_cost() const { return async ? snapshot_time : write_time; }
};

core::Duration young_interval(core::Duration delta, core::Duration mtti);
core::Duration daly_interval(core::Duration delta, core::Duration mtti);

}  // namespace goodsim::models::policy
