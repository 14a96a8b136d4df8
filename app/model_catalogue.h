// The model catalogue as data: every registered model (failures, stragglers,
// policies) and every surrogate loss model, each with the parameters its
// config parser reads, collected by running the parser on a describe-mode
// ObjectReader (see sim/scenario/reader.h). `goodsim list-models` prints it;
// the Python module returns it from goodsim.models().
#pragma once

#include <string>
#include <vector>

#include "models/registry.h"
#include "sim/scenario/reader.h"

namespace goodsim::app {

struct ModelDoc {
  std::string kind;          // "failure", "straggler", "policy" or "loss"
  std::string scenario_key;  // where entries go: "failures", "stragglers", "policies", "loss"
  std::string type;          // the entry's "type"
  std::string help;          // one line
  std::vector<scenario::ParamDoc> params;  // in the order the parser reads them
};

// Every model of `registry`, grouped by kind (failures, stragglers, policies,
// in registration order within a kind), then the loss models.
std::vector<ModelDoc> model_catalogue(const models::Registry& registry);

}  // namespace goodsim::app
