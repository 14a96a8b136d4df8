#include "app/calibrate/choice.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "app/model_catalogue.h"
#include "sim/scenario/error.h"
#include "sim/scenario/json_file.h"
#include "sim/scenario/overrides.h"
#include "sim/scenario/scenario.h"
#include "sim/scenario/text.h"

namespace goodsim::app::calibrate {
namespace {

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out;
  for (size_t from = 0; from <= text.size();) {
    const size_t at = std::min(text.find(sep, from), text.size());
    out.push_back(text.substr(from, at - from));
    from = at + 1;
  }
  return out;
}

// A list index as --set paths write it (plain decimal digits, at most 9), or nullopt.
std::optional<uint64_t> list_index(const std::string& s) { return scenario::parse_digits(s, 9); }
bool is_index(const std::string& s) { return list_index(s).has_value(); }

// "a.0.b" -> "a.*.b", the form ParamDoc keys use for list elements.
std::string doc_key(const std::vector<std::string>& parts, size_t from) {
  std::string key;
  for (size_t i = from; i < parts.size(); ++i) {
    key += (key.empty() ? "" : ".") + (is_index(parts[i]) ? std::string("*") : parts[i]);
  }
  return key;
}

Choice::Alternative read_fragment(const std::string& label, const std::string& where) {
  const std::string file = label.substr(1);
  nlohmann::json frag;
  try {
    frag = scenario::load_json_file(file);
  } catch (const scenario::ScenarioError& e) {
    throw scenario::ScenarioError(where, "", fmt::format("fragment {}: {}", label, e.what()));
  }
  if (!frag.is_object()) {
    throw scenario::ScenarioError(where, "",
                                  fmt::format("fragment {}: expected a JSON object", label));
  }
  std::string description;
  if (frag.contains("description")) {
    if (!frag["description"].is_string()) {
      throw scenario::ScenarioError(where, "",
                                    fmt::format("fragment {}: description: expected a string", label));
    }
    description = frag["description"].get<std::string>();
    frag.erase("description");
  }
  return {label, std::move(frag), std::move(description)};
}

// The documentation of the key `path` addresses in `doc`, if any.
std::optional<scenario::ParamDoc> find_param(const nlohmann::json& doc, const std::string& path,
                                             const models::Registry& registry) {
  const std::vector<std::string> parts = split(path, '.');
  std::vector<scenario::ParamDoc> params;
  std::string key;
  const bool listed = parts.size() >= 3 && is_index(parts[1]) &&
                      (parts[0] == "failures" || parts[0] == "stragglers" || parts[0] == "policies");
  if (listed || (parts.size() >= 2 && parts[0] == "loss")) {
    const nlohmann::json* entry = doc.is_object() && doc.contains(parts[0]) ? &doc[parts[0]] : nullptr;
    if (entry && listed) {
      const uint64_t i = *list_index(parts[1]);
      entry = entry->is_array() && i < entry->size() ? &(*entry)[i] : nullptr;
    }
    if (!entry || !entry->is_object() || !entry->value("type", nlohmann::json()).is_string()) {
      return std::nullopt;
    }
    const std::string type = (*entry)["type"].get<std::string>();
    for (const ModelDoc& m : model_catalogue(registry)) {
      if (m.scenario_key == parts[0] && m.type == type) params = m.params;
    }
    key = doc_key(parts, listed ? 2 : 1);
  } else {
    params = scenario::describe_scenario();
    key = doc_key(parts, 0);
  }
  for (const scenario::ParamDoc& p : params) {
    if (p.key == key) return p;
  }
  return std::nullopt;
}

// The quoted options of a choice's range text: one of "a", "b".
std::vector<std::string> options_of(const std::string& range) {
  std::vector<std::string> out;
  for (size_t at = range.find('"'); at != std::string::npos;) {
    const size_t end = range.find('"', at + 1);
    if (end == std::string::npos) break;
    out.push_back(range.substr(at + 1, end - at - 1));
    at = range.find('"', end + 1);
  }
  return out;
}

}  // namespace

Choice Choice::parse(const std::string& text) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size()) {
    throw scenario::ScenarioError(
        "--choose", "",
        fmt::format("expected PATH=A|B|... or NAME=@a.json|@b.json, got \"{}\"",
                    scenario::shorten(text, 100)));
  }
  Choice c;
  c.name_ = text.substr(0, eq);
  const std::string where = "--choose " + c.name_;
  const std::vector<std::string> labels = split(text.substr(eq + 1), '|');
  if (labels.size() < 2) throw scenario::ScenarioError(where, "", "expected at least two alternatives");
  size_t at_files = 0;
  for (const std::string& l : labels) {
    if (l.empty()) throw scenario::ScenarioError(where, "", "empty alternative");
    at_files += l.front() == '@' ? 1 : 0;
    if (std::count(labels.begin(), labels.end(), l) > 1) {
      throw scenario::ScenarioError(where, "", fmt::format("alternative \"{}\" given twice", l));
    }
  }
  if (at_files != 0 && at_files != labels.size()) {
    throw scenario::ScenarioError(where, "", "expected either all alternatives @files or none");
  }
  c.fragments_ = at_files > 0;
  if (!c.fragments_) {
    c.paths_ = split(c.name_, ',');
    for (const std::string& p : c.paths_) {
      if (p.empty()) throw scenario::ScenarioError(where, "", "expected PATH[,PATH...]=A|B|...");
    }
  }
  for (const std::string& l : labels) {
    c.alternatives_.push_back(c.fragments_ ? read_fragment(l, where)
                                           : Alternative{l, nlohmann::json(l), ""});
  }
  return c;
}

void Choice::check(const nlohmann::json& doc, const models::Registry& registry) const {
  if (fragments_) return;
  const std::string where = "--choose " + name_;
  std::vector<nlohmann::json> values(alternatives_.size());
  for (const std::string& path : paths_) {
    const std::optional<scenario::ParamDoc> p = find_param(doc, path, registry);
    if (!p || (p->kind != "choice" && p->kind != "bool")) {
      throw scenario::ScenarioError(
          where, path,
          p ? fmt::format("a {} key, not a choice or boolean key (use --fit for a continuous "
                          "knob)",
                          p->kind)
            : std::string("not a choice or boolean key of the scenario"));
    }
    const std::vector<std::string> options =
        p->kind == "bool" ? std::vector<std::string>{"true", "false"} : options_of(p->range);
    for (size_t a = 0; a < alternatives_.size(); ++a) {
      const std::string& label = alternatives_[a].label;
      if (!options.empty() && std::find(options.begin(), options.end(), label) == options.end()) {
        std::string list;
        for (const std::string& o : options) list += (list.empty() ? "\"" : ", \"") + o + "\"";
        throw scenario::ScenarioError(
            where, path,
            fmt::format("\"{}\" is not accepted; expected one of {}", scenario::shorten(label, 60),
                        list));
      }
    }
  }
}

void Choice::apply(nlohmann::json& doc, size_t a) const {
  const Alternative& alt = alternatives_.at(a);
  if (fragments_) {
    merge_fragment(doc, alt.value);
    return;
  }
  for (const std::string& p : paths_) {
    try {
      scenario::apply_override(doc, p + "=" + alt.label);
    } catch (const scenario::ScenarioError& e) {
      throw scenario::ScenarioError("--choose " + name_, e.path(), e.message());
    }
  }
}

void merge_fragment(nlohmann::json& doc, const nlohmann::json& patch) {
  if (patch.is_object() && doc.is_object()) {
    for (const auto& [key, value] : patch.items()) {
      if (doc.contains(key)) {
        merge_fragment(doc[key], value);
      } else {
        doc[key] = value;
      }
    }
  } else if (patch.is_array() && doc.is_array()) {
    for (size_t i = 0; i < patch.size(); ++i) {
      if (i < doc.size()) {
        merge_fragment(doc[i], patch[i]);
      } else {
        doc.push_back(patch[i]);
      }
    }
  } else {
    doc = patch;
  }
}

}  // namespace goodsim::app::calibrate
