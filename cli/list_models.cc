// goodsim list-models: the model catalogue (cli/model_catalogue.h) as text,
// one parameter table per model.
#include <fmt/format.h>

#include <ostream>

#include "cli/commands.h"
#include "cli/model_catalogue.h"
#include "cli/table.h"

namespace goodsim::cli {
namespace {

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

// The heading printed before the first model of a kind.
std::string kind_heading(const ModelDoc& m) {
  if (m.kind == "loss") {
    return "Every entry also takes \"type\" (required) and \"name\" (optional; default: the type "
           "for policies, \"<type>.<index>\" otherwise).\n\n"
           "loss models (scenario key \"loss\", one object with \"type\"):\n\n";
  }
  return fmt::format("{} models (scenario key \"{}\"):\n\n", m.kind, m.scenario_key);
}

}  // namespace

int list_models_command(std::ostream& out) {
  const std::vector<ModelDoc> catalogue = model_catalogue(models::builtin_registry());
  for (size_t i = 0; i < catalogue.size(); ++i) {
    const ModelDoc& m = catalogue[i];
    if (i == 0 || catalogue[i - 1].kind != m.kind) out << kind_heading(m);
    out << fmt::format("  {}: {}\n", m.type, m.help);
    out << param_table(m.params) << "\n";
  }
  return 0;
}

}  // namespace goodsim::cli
