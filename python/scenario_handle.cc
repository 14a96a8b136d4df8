#include "python/scenario_handle.h"

#include <optional>

#include "models/registry.h"
#include "models/resource_estimate.h"
#include "sim/scenario/error.h"
#include "sim/scenario/json_file.h"

namespace goodsim::python {
namespace {

// The command line's "--set" (or "--set k=v", for an error found later at a key an
// override set) is the module's `overrides` argument.
scenario::ScenarioError as_overrides_error(const scenario::ScenarioError& e) {
  std::vector<scenario::ScenarioError> out;
  for (const scenario::ScenarioError& one : e.errors()) {
    const bool from_override = one.file() == "--set" || one.file().starts_with("--set ");
    out.push_back(from_override ? scenario::ScenarioError("overrides", one.path(), one.message())
                                : one);
  }
  return scenario::ScenarioError::combined(std::move(out), e.left_out());
}

}  // namespace

ScenarioHandle ScenarioHandle::load(const std::string& source, bool is_file,
                                    const std::string& label,
                                    const std::vector<std::string>& overrides) {
  app::ScenarioSource src;
  src.label = label;
  src.doc = is_file ? scenario::load_json_file(source) : nlohmann::json::parse(source);
  std::optional<models::PreparedScenario> prepared_doc;
  try {
    app::apply_overrides(src, overrides, std::nullopt);
    // Errors at a key an override set name the override, not the file.
    prepared_doc.emplace(app::prepare_source(src, models::builtin_registry()));
  } catch (const scenario::ScenarioError& e) {
    throw as_overrides_error(e);
  }
  models::PreparedScenario checked = std::move(*prepared_doc);
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
