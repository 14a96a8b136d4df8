// goodsim list-models: the model catalogue (app/model_catalogue.h) as text
// wrapped to the terminal, as Markdown (docs/models.md) or as a JSON Schema of
// the scenario format (docs/scenario.schema.json).
#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <ostream>

#include "app/commands.h"
#include "app/model_catalogue.h"
#include "app/model_docs.h"
#include "sim/scenario/error.h"
#include "sim/scenario/scenario.h"

namespace goodsim::app {
namespace {

constexpr size_t kDefaultWidth = 100;
constexpr size_t kMinWidth = 40;

// The terminal's width when standard output is one, else $COLUMNS, else 100.
size_t terminal_width() {
  winsize w{};
  if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &w) == 0 && w.ws_col > 0) {
    return w.ws_col;
  }
  if (const char* columns = std::getenv("COLUMNS")) {
    const long n = std::strtol(columns, nullptr, 10);
    if (n > 0) return static_cast<size_t>(n);
  }
  return kDefaultWidth;
}

// `text` wrapped at word boundaries into lines of at most `width` characters
// (a longer word stays whole), each prefixed with `indent`.
std::string wrap(std::string_view text, const std::string& indent, size_t width) {
  const size_t room = width > indent.size() + 10 ? width - indent.size() : 10;
  std::string out, line;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find(' ', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view word = text.substr(start, end - start);
    if (!line.empty() && line.size() + 1 + word.size() > room) {
      out += indent + line + "\n";
      line.clear();
    }
    if (!word.empty()) line += (line.empty() ? "" : " ") + std::string(word);
    start = end + 1;
  }
  if (!line.empty()) out += indent + line + "\n";
  return out;
}

// One parameter: its key, type, unit, default and range on a line, the help
// wrapped below it.
std::string param_text(const scenario::ParamDoc& d, size_t width) {
  std::string head = fmt::format("{}: {}", d.key, d.kind);
  if (!d.unit.empty() && d.unit != d.kind) head += fmt::format(" [{}]", d.unit);
  head += d.required ? ", required" : d.default_text.empty() ? "" : ", default " + d.default_text;
  if (!d.range.empty()) head += ", " + d.range;
  return wrap(head, "    ", width) + wrap(d.help, "        ", width);
}

std::string kind_heading(const ModelDoc& m, size_t width) {
  if (m.kind == "loss") {
    return wrap("Every entry also takes \"type\" (required) and \"name\" (optional; default: the "
                "type for policies, \"<type>.<index>\" otherwise).", "", width) +
           "\nloss models (scenario key \"loss\", one object with \"type\"):\n\n";
  }
  return fmt::format("{} models (scenario key \"{}\"):\n\n", m.kind, m.scenario_key);
}

std::string catalogue_text(const std::vector<ModelDoc>& catalogue, size_t width) {
  std::string out;
  for (size_t i = 0; i < catalogue.size(); ++i) {
    const ModelDoc& m = catalogue[i];
    if (i == 0 || catalogue[i - 1].kind != m.kind) out += kind_heading(m, width);
    out += wrap(fmt::format("{}: {}", m.type, m.help), "  ", width);
    for (const scenario::ParamDoc& d : m.params) out += param_text(d, width);
    out += "\n";
  }
  return out;
}

}  // namespace

int list_models_command(std::ostream& out, const std::string& format,
                        std::optional<size_t> width) {
  const std::vector<ModelDoc> catalogue = model_catalogue(models::builtin_registry());
  if (format == "markdown") {
    out << models_markdown(scenario::describe_scenario(), catalogue);
  } else if (format == "json") {
    out << scenario_schema(scenario::describe_scenario(), catalogue);
  } else if (format == "text") {
    out << catalogue_text(catalogue, std::max(width.value_or(terminal_width()), kMinWidth));
  } else {
    throw scenario::ScenarioError("--format", "", fmt::format("expected text, markdown or "
                                                              "json, got \"{}\"", format));
  }
  return 0;
}

}  // namespace goodsim::app
