// hardware_generations: slices of an older (slower) chip generation.
//
// Each entry of `generations` names a set of slices - a site by name, or a
// range of slices - and the factor by which their steps are slower than the
// job's nominal step time (which is the fastest generation's). The factors are
// whole-slice speeds (SlowdownMode::kScale), in place for the whole run, so
// they multiply with other kScale slowdowns (a job's steady slowdown, a
// diurnal swing) and with the slowest member of the slice.
//
//   "generations": [
//     {"name": "v4", "site": "dc-b", "factor": 1.18},
//     {"name": "v4", "first_slice": 0, "slices": 8, "factor": 1.18}
//   ]
//
// Decoupled DiLoCo's heterogeneous run puts half its learners on a generation
// about 18% slower. Generations may not overlap, and sites and ranges must
// exist in the cluster: checked when the cluster is known (at validation when
// the registry passes a ParseContext, otherwise when the run starts; both
// raise a ScenarioError naming the entry).
#pragma once

#include <string>
#include <variant>
#include <vector>

#include "models/configured_model.h"
#include "models/parse_context.h"
#include "models/straggler/straggler_model.h"
#include "sim/scenario/reader.h"

namespace goodsim::models::straggler {

struct HardwareGeneration {
  std::string name;          // label in logs; "generations.<i>" when absent
  std::string site;          // a site name, or empty for a slice range
  uint32_t first_slice = 0;  // slice range (when site is empty)
  uint32_t slices = 0;
  double factor = 1.0;       // step-time multiplier, >= 1
};

struct HardwareGenerationsConfig {
  std::vector<HardwareGeneration> generations;
  std::string path;  // JSON path of the model entry, for messages at run time

  // Slices [first, first + count) of one generation.
  struct SliceRange {
    uint32_t first = 0;
    uint32_t count = 0;
  };
  // A problem found against the cluster; key is relative to the model entry.
  struct Problem {
    std::string key;
    std::string message;
  };

  // The model's expected_use (environment_model.h) with these parameters.
  ResourceUse expected_use(const cluster::Layout& layout, core::Duration horizon) const;
  static HardwareGenerationsConfig from_json(scenario::ObjectReader& r);
  // Also checks the generations against ctx.layout when it is known.
  static HardwareGenerationsConfig from_json(scenario::ObjectReader& r, const ParseContext& ctx);
  // The slices of each generation (in order), or the first problem: an unknown
  // site, a range beyond the cluster, or two generations sharing a slice.
  std::variant<std::vector<SliceRange>, Problem> resolve(const cluster::Layout& layout) const;
};

class HardwareGenerations : public ConfiguredModel<StragglerModel, HardwareGenerationsConfig> {
 public:
  using ConfiguredModel::ConfiguredModel;

  // Throws ScenarioError if the generations do not fit the cluster.
  void start(RunContext& ctx) override;
};

}  // namespace goodsim::models::straggler
