#include "python/scenario_handle.h"

#include "models/registry.h"
#include "models/resource_estimate.h"
#include "sim/scenario/error.h"
#include "sim/scenario/json_file.h"

namespace goodsim::python {

ScenarioHandle ScenarioHandle::load(const std::string& source, bool is_file,
                                    const std::string& label,
                                    const std::vector<std::string>& overrides) {
  app::ScenarioSource src;
  src.label = label;
  src.doc = is_file ? scenario::load_json_file(source) : nlohmann::json::parse(source);
  try {
    app::apply_overrides(src, overrides, std::nullopt);
  } catch (const scenario::ScenarioError& e) {
    // The command line's "--set" is the module's `overrides` argument.
    if (e.file() != "--set") throw;
    throw scenario::ScenarioError("overrides", e.path(), e.message());
  }
  models::PreparedScenario checked = models::prepare(src.doc, src.label, models::builtin_registry());
  // The same default limits as `goodsim run` and `goodsim validate`: a scenario
  // that would need too many events or too much memory is refused here.
  models::enforce_limits(checked, models::estimate_resources(checked), {});
  auto prepared = std::make_shared<const models::PreparedScenario>(std::move(checked));
  return ScenarioHandle(std::move(src), std::move(prepared));
}

std::vector<std::string> ScenarioHandle::policy_names() const {
  std::vector<std::string> out;
  for (const models::PreparedPolicy& p : prepared_->policies) out.push_back(p.name);
  return out;
}

std::vector<std::string> ScenarioHandle::policy_types() const {
  std::vector<std::string> out;
  for (const models::PreparedPolicy& p : prepared_->policies) out.push_back(p.type);
  return out;
}

}  // namespace goodsim::python
