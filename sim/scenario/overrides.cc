#include "sim/scenario/overrides.h"

#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/scenario/error.h"
#include "sim/scenario/json_file.h"
#include "sim/scenario/text.h"
#include "sim/scenario/utf8.h"

namespace goodsim::scenario {
namespace {

constexpr const char* kSource = "--set";

[[noreturn]] void fail(const std::string& path, const std::string& message) {
  throw ScenarioError(kSource, path, message);
}

std::vector<std::string_view> split_path(std::string_view path) {
  std::vector<std::string_view> segments;
  size_t start = 0;
  while (true) {
    const size_t dot = path.find('.', start);
    segments.push_back(path.substr(start, dot == std::string_view::npos ? dot : dot - start));
    if (dot == std::string_view::npos) return segments;
    start = dot + 1;
  }
}

// A list index: plain decimal digits only ("-1", "+1", "1e0" are not indices).
std::optional<size_t> parse_index(std::string_view segment) {
  const auto index = parse_digits(segment, 9);
  if (!index) return std::nullopt;
  return static_cast<size_t>(*index);
}

std::string describe_parent(const std::string& parent_path) {
  return parent_path.empty() ? "the scenario" : fmt::format("\"{}\"", parent_path);
}

nlohmann::json& list_element(nlohmann::json& list, std::string_view segment,
                             const std::string& path) {
  const auto index = parse_index(segment);
  if (!index) {
    fail(path, fmt::format("\"{}\" is not a list index; use 0 to {}", segment,
                           list.empty() ? 0 : list.size() - 1));
  }
  if (*index >= list.size()) {
    fail(path, fmt::format("index {} is out of range; the list has {} element{}", *index,
                           list.size(), list.size() == 1 ? "" : "s"));
  }
  return list[*index];
}

std::vector<std::string> keys_of(const nlohmann::json& object) {
  std::vector<std::string> keys;
  for (auto it = object.begin(); it != object.end(); ++it) keys.push_back(it.key());
  return keys;
}

// Steps from `node` (at parent_path) into `segment`, which must exist.
nlohmann::json& descend(nlohmann::json& node, std::string_view segment,
                        const std::string& parent_path) {
  const std::string path = join_path(parent_path, segment);
  if (node.is_array()) return list_element(node, segment, path);
  if (!node.is_object()) {
    fail(path, fmt::format("cannot go into {}: it is {}, not an object or a list",
                           describe_parent(parent_path), describe_value(node)));
  }
  const auto it = node.find(std::string(segment));
  if (it == node.end()) fail(path, "no such key; " + key_hint(segment, keys_of(node)));
  return *it;
}

// The value text as JSON if it parses, else as a plain string (which must be UTF-8: it ends
// up in JSON outputs). `path` is the key being set, for messages.
nlohmann::json parse_value(std::string_view text, std::string_view path) {
  const std::string label = fmt::format("{} {}", kSource, path);
  if (auto value = try_parse_json_text(text, label)) return std::move(*value);
  if (!is_valid_utf8(text)) fail(std::string(path), "the value is not valid UTF-8 text");
  return nlohmann::json(std::string(text));
}

}  // namespace

void apply_override(nlohmann::json& doc, std::string_view assignment) {
  const size_t eq = assignment.find('=');
  if (eq == std::string_view::npos) {
    fail("", fmt::format("expected path.to.key=value, got \"{}\"", assignment));
  }
  const std::string_view path = trim(assignment.substr(0, eq));
  if (path.empty()) fail("", fmt::format("empty key path in \"{}\"", assignment));
  const std::vector<std::string_view> segments = split_path(path);
  for (std::string_view segment : segments) {
    if (segment.empty()) fail(std::string(path), "empty key between dots");
  }
  nlohmann::json value = parse_value(assignment.substr(eq + 1), path);

  nlohmann::json* node = &doc;
  std::string walked;
  for (size_t i = 0; i + 1 < segments.size(); ++i) {
    node = &descend(*node, segments[i], walked);
    walked = join_path(walked, segments[i]);
  }
  const std::string_view last = segments.back();
  if (node->is_object()) {
    (*node)[std::string(last)] = std::move(value);
  } else if (node->is_array()) {
    list_element(*node, last, join_path(walked, last)) = std::move(value);
  } else {
    fail(join_path(walked, last),
         fmt::format("cannot set a key in {}: it is {}, not an object or a list",
                     describe_parent(walked), describe_value(*node)));
  }
}

namespace {

ScenarioError attribute_one(const ScenarioError& error, const std::vector<KeySource>& sources) {
  const std::string& at = error.path();
  for (auto it = sources.rbegin(); it != sources.rend(); ++it) {
    const std::string& key = it->path;
    const bool under = at.size() > key.size() && at.starts_with(key) && at[key.size()] == '.';
    if (!key.empty() && (at == key || under)) {
      return ScenarioError(it->label, at, error.message());
    }
  }
  return error;
}

}  // namespace

ScenarioError attribute_to_sources(const ScenarioError& error,
                                   const std::vector<KeySource>& sources) {
  const std::vector<ScenarioError> all = error.errors();
  if (all.size() == 1) return attribute_one(error, sources);
  std::vector<ScenarioError> out;
  for (const ScenarioError& e : all) out.push_back(attribute_one(e, sources));
  return ScenarioError::combined(std::move(out), error.left_out());
}

ScenarioError attribute_to_override(const ScenarioError& error,
                                    const std::vector<std::string>& assignments) {
  std::vector<KeySource> sources;
  for (const std::string& a : assignments) {
    const size_t eq = a.find('=');
    if (eq == std::string::npos) continue;
    sources.push_back({fmt::format("{} {}", kSource, a),
                       std::string(trim(std::string_view(a).substr(0, eq)))});
  }
  return attribute_to_sources(error, sources);
}

}  // namespace goodsim::scenario
