// RepairPipeline: how long a failed unit stays down, as a sequence of repair
// stages (e.g. an automatic repair that fixes the unit with probability p,
// escalated otherwise to a manual repair that always does).
//
// A repair runs the stages in order; stage i takes a duration drawn from its
// distribution and then succeeds with probability success_i (the last stage
// always succeeds). The repair time is the sum of the stages attempted. With
// one stage of success 1 it is a plain repair-time distribution, and draws
// exactly one value per repair, like the injectors' `repair_time`.
//
// Draw order per repair (from the Rng the caller lends): stage 0's duration,
// then (only when success_0 < 1) a uniform for its outcome, then stage 1, ...
//
// Scenario key `repair` (a list, replacing `repair_time`):
//   [{"name": "auto", "time": {"dist": "exponential", "mean": "2h"}, "success": 0.2},
//    {"name": "manual", "time": "2d"}]
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/distributions.h"
#include "sim/core/rng.h"
#include "sim/core/time.h"
#include "sim/scenario/reader.h"

namespace goodsim::models::failure {

struct RepairStage {
  std::string name;
  core::Distribution time;  // seconds
  double success = 1;       // in [0, 1]; the last stage's is 1
};

class RepairPipeline {
 public:
  // One stage named "repair" with duration `time` (seconds).
  static RepairPipeline single(core::Distribution time);
  // Reads `repair` (a stage list) or else `repair_time` (one stage, default
  // `def`). Both at once is an error.
  static RepairPipeline from_json(scenario::ObjectReader& r, core::Duration def);

  struct Outcome {
    core::Duration time;
    uint32_t stage = 0;  // the stage that succeeded
  };
  Outcome draw(core::Rng& rng) const;

  const std::vector<RepairStage>& stages() const { return stages_; }

 private:
  std::vector<RepairStage> stages_;
};

}  // namespace goodsim::models::failure
