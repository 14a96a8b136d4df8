// goodsim list-models: every registered model with its parameters, collected
// by running each model's config parser on a describe-mode reader.
#include <fmt/format.h>

#include <ostream>

#include "models/loss/loss_config.h"
#include "models/registry.h"
#include "cli/commands.h"
#include "cli/table.h"
#include "sim/scenario/error.h"

namespace goodsim::cli {
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

std::string param_table(const std::vector<scenario::ParamDoc>& docs) {
  Table t({"parameter", "type", "unit", "default", "range", "help"});
  for (const scenario::ParamDoc& d : docs) {
    t.add_row({d.key, d.kind, d.unit.empty() ? "-" : d.unit,
               d.required ? "(required)" : (d.default_text.empty() ? "-" : d.default_text),
               d.range.empty() ? "-" : d.range, d.help});
  }
  std::string out;
  const std::string text = t.render();
  size_t start = 0;
  while (start < text.size()) {
    const size_t end = text.find('\n', start);
    out += "    " + text.substr(start, end - start) + "\n";
    start = end + 1;
  }
  return out;
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

void list_loss_models(std::ostream& out) {
  out << "loss models (scenario key \"loss\", one object with \"type\"):\n\n";
  for (const auto& [type, help] : models::loss::loss_model_types()) {
    out << fmt::format("  {}: {}\n", type, help);
    out << param_table(describe_loss(type)) << "\n";
  }
}

}  // namespace

int list_models_command(std::ostream& out) {
  const models::Registry registry = models::builtin_registry();
  for (models::ModelKind kind : {models::ModelKind::kFailure, models::ModelKind::kStraggler,
                                 models::ModelKind::kPolicy}) {
    out << fmt::format("{} models (scenario key \"{}\"):\n\n", models::kind_name(kind),
                       models::scenario_key(kind));
    for (const models::ModelInfo& m : registry.models()) {
      if (m.kind != kind) continue;
      out << fmt::format("  {}: {}\n", m.type, m.help);
      out << param_table(describe_model(m)) << "\n";
    }
  }
  out << "Every entry also takes \"type\" (required) and \"name\" (optional; default: the type "
         "for policies, \"<type>.<index>\" otherwise).\n\n";
  list_loss_models(out);
  return 0;
}

}  // namespace goodsim::cli
