// persistent_stragglers: a fraction of chips (or hosts, slices) that are slow
// for the whole run.
//
// At t = 0 every unit is independently slow with probability `fraction`; a
// slow unit gets its own factor from the factor law (straggler_params.h) and
// keeps it to the end. Slow units are slow members (SlowdownMode::kSlowest): a
// slice runs at the pace of its slowest chip.
//
// The slow units are chosen by geometric skipping (the gap to the next slow
// unit is Geometric(fraction)), so start() costs O(slow units), not O(units).
#pragma once

#include <string>

#include "models/configured_model.h"
#include "models/straggler/straggler_model.h"
#include "models/straggler/straggler_params.h"

namespace goodsim::models::straggler {

struct PersistentStragglersConfig {
  double fraction = 0;  // probability that a unit is slow, in [0, 1]
  FactorLaw factor;     // slowdown of a slow unit
  cluster::Domain domain = cluster::Domain::kChip;

  // The model's expected_use (environment_model.h) with these parameters.
  ResourceUse expected_use(const cluster::Layout& layout, core::Duration horizon) const;
  static PersistentStragglersConfig from_json(scenario::ObjectReader& r);
};

class PersistentStragglers : public ConfiguredModel<StragglerModel, PersistentStragglersConfig> {
 public:
  using ConfiguredModel::ConfiguredModel;

  void start(RunContext& ctx) override;
  // Units made slow by start().
  uint64_t slow_units() const { return slow_units_; }

 private:
  uint64_t slow_units_ = 0;
};

}  // namespace goodsim::models::straggler
