// Where a scenario document comes from: a file, or the built-in demo; with the
// command line's --set overrides applied before anything is validated.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/runner.h"

namespace goodsim::app {

struct ScenarioSource {
  std::string label;     // file name as given, or "<demo>"
  nlohmann::json doc;
  std::vector<std::string> sets;  // the --set assignments applied to doc
};

// Reads `path` (or the embedded demo when empty), then apply_overrides().
// Throws scenario::ScenarioError.
ScenarioSource load_scenario(const std::optional<std::string>& path,
                             const std::vector<std::string>& sets,
                             const std::optional<uint64_t>& seed);

// models::prepare(src.doc, src.label, registry), with errors at a key one of src.sets
// assigned addressed to that --set argument (scenario::attribute_to_override).
models::PreparedScenario prepare_source(const ScenarioSource& src,
                                        const models::Registry& registry);

// Applies each "k=v" of `sets` to `src.doc` in order, then `seed` if given.
// Throws scenario::ScenarioError.
void apply_overrides(ScenarioSource& src, const std::vector<std::string>& sets,
                     const std::optional<uint64_t>& seed);

// The embedded demo scenario, as shipped in scenarios/demo.json.
const char* demo_scenario_text();

}  // namespace goodsim::app
