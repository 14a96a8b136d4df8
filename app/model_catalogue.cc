#include "app/model_catalogue.h"

#include "models/loss/loss_config.h"
#include "sim/scenario/error.h"

namespace goodsim::app {
namespace {

std::vector<scenario::ParamDoc> describe_model(const models::ModelInfo& m) {
  scenario::ObjectReader r = scenario::ObjectReader::describe();
  try {
    if (m.parse_failure) m.parse_failure(r, models::ParseContext{});
    if (m.parse_straggler) m.parse_straggler(r, models::ParseContext{});
    if (m.parse_policy) m.parse_policy(r, models::ParseContext{});
  } catch (const scenario::ScenarioError&) {
    // Cross-field checks may reject placeholders; the docs gathered so far stand.
  }
  return r.docs();
}

std::vector<scenario::ParamDoc> describe_loss(const std::string& type) {
  scenario::ObjectReader r = scenario::ObjectReader::describe();
  try {
    if (type == "scaling_law") models::loss::ScalingLawConfig::from_json(r);
    if (type == "nqm") models::loss::NqmConfig::from_json(r);
  } catch (const scenario::ScenarioError&) {
    // As for models: placeholders may fail cross-field checks.
  }
  return r.docs();
}

}  // namespace

std::vector<ModelDoc> model_catalogue(const models::Registry& registry) {
  std::vector<ModelDoc> out;
  for (models::ModelKind kind : {models::ModelKind::kFailure, models::ModelKind::kStraggler,
                                 models::ModelKind::kPolicy}) {
    for (const models::ModelInfo& m : registry.models()) {
      if (m.kind != kind) continue;
      out.push_back({models::kind_name(kind), models::scenario_key(kind), m.type, m.help,
                     describe_model(m)});
    }
  }
  for (const auto& [type, help] : models::loss::loss_model_types()) {
    out.push_back({"loss", "loss", type, help, describe_loss(type)});
  }
  return out;
}

}  // namespace goodsim::app
