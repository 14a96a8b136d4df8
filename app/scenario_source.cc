#include "app/scenario_source.h"

#include <fmt/format.h>

#include "demo_scenario.h"
#include "sim/scenario/error.h"
#include "sim/scenario/input_file.h"
#include "sim/scenario/json_file.h"
#include "sim/scenario/overrides.h"
#include "sim/scenario/scenario.h"

namespace goodsim::app {

const char* demo_scenario_text() { return kDemoScenarioJson; }

ScenarioSource load_scenario(const std::optional<std::string>& path,
                             const std::vector<std::string>& sets,
                             const std::optional<uint64_t>& seed) {
  ScenarioSource src;
  if (path) {
    src.label = scenario::input_label(*path);  // "-": standard input, "<stdin>"
    src.doc = scenario::load_json_file(*path);
  } else {
    src.label = "<demo>";
    src.doc = nlohmann::json::parse(kDemoScenarioJson);
  }
  apply_overrides(src, sets, seed);
  return src;
}

void apply_overrides(ScenarioSource& src, const std::vector<std::string>& sets,
                     const std::optional<uint64_t>& seed) {
  src.sets.insert(src.sets.end(), sets.begin(), sets.end());
  for (const std::string& s : sets) scenario::apply_override(src.doc, s);
  if (seed) {
    if (*seed > scenario::kMaxSeed) {
      throw scenario::ScenarioError("--seed", "", fmt::format("expected a seed from 0 to {} "
                                                              "(2^63 - 1), got {}",
                                                              scenario::kMaxSeed, *seed));
    }
    if (!src.doc.is_object()) throw scenario::ScenarioError(src.label, "", "expected a JSON object");
    src.doc["seed"] = *seed;
  }
}

models::PreparedScenario prepare_source(const ScenarioSource& src,
                                        const models::Registry& registry) {
  try {
    return models::prepare(src.doc, src.label, registry);
  } catch (const scenario::ScenarioError& e) {
    throw scenario::attribute_to_override(e, src.sets);
  }
}

}  // namespace goodsim::app
