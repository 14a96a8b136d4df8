// The scenario format as documents generated from what the readers declare
// (describe mode, sim/scenario/reader.h): the top-level keys and every model
// of the catalogue. `goodsim list-models --format markdown` writes
// docs/models.md and `--format json` docs/scenario.schema.json; a test checks
// the committed files equal the generated ones, so they cannot drift.
#pragma once

#include <string>
#include <vector>

#include "app/model_catalogue.h"
#include "sim/scenario/reader.h"

namespace goodsim::app {

// The Markdown reference: the scenario's own keys, then one parameter table
// per model, grouped by kind. Deterministic (no dates, no paths).
std::string models_markdown(const std::vector<scenario::ParamDoc>& scenario_keys,
                            const std::vector<ModelDoc>& catalogue);

// A JSON Schema (draft 2020-12) of a scenario file: unknown keys are refused
// (additionalProperties false, as the reader does), model entries are one of
// the registered types (by "type"), quantities accept their units' strings.
// Cross-field rules are not expressed; `goodsim validate` checks them.
std::string scenario_schema(const std::vector<scenario::ParamDoc>& scenario_keys,
                            const std::vector<ModelDoc>& catalogue);

}  // namespace goodsim::app
