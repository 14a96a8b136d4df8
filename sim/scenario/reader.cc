#include "sim/scenario/reader.h"

#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

#include "sim/scenario/error.h"
#include "sim/scenario/text.h"
#include "sim/scenario/units.h"

namespace goodsim::scenario {

namespace detail {

// How one kind of value is read, checked and formatted.
template <class T>
struct Quantity {
  std::string_view kind;  // ParamDoc::kind
  std::string_view noun;  // "a count", in range messages
  std::string_view unit;  // ParamDoc::unit
  T (*from_json)(const nlohmann::json&);
  std::string (*format)(T);
  T placeholder;  // describe mode's value for a required key (clamped into range)
  T lowest;       // a min equal to this means "no lower bound"
  T highest;      // a max equal to this means "no upper bound"
  T natural_min;  // docs leave out bounds equal to the kind's natural range
  T natural_max;
};

}  // namespace detail

namespace {

using detail::Need;
using detail::Quantity;
using nlohmann::json;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr int64_t kMinCount = std::numeric_limits<int64_t>::min();
constexpr int64_t kMaxCount = std::numeric_limits<int64_t>::max();

std::string format_count(int64_t v) { return fmt::format("{}", v); }

constexpr Quantity<double> kNumber = {"number", "a number", "", number_from_json, format_number,
                                      1.0, -kInf, kInf, -kInf, kInf};
constexpr Quantity<int64_t> kCount = {"count", "a count", "count", count_from_json, format_count,
                                      1, kMinCount, kMaxCount, 0, kMaxCount};
constexpr Quantity<core::Duration> kDuration = {
    "duration", "a duration", "s", duration_from_json, format_duration,
    core::Duration::seconds(1), core::Duration::min(), core::Duration::max(),
    core::Duration::zero(), core::Duration::max()};
constexpr Quantity<double> kBandwidth = {"bandwidth", "a bandwidth", "bit/s",
                                         bandwidth_from_json, format_bandwidth_bps,
                                         1.0, -kInf, kInf, 0, kInf};
constexpr Quantity<double> kFlops = {"flops", "a FLOP/s rate", "FLOP/s", flops_from_json,
                                     format_flops, 1.0, -kInf, kInf, 0, kInf};
constexpr Quantity<double> kBytes = {"bytes", "a byte size", "bytes", bytes_from_json,
                                     format_bytes, 1.0, -kInf, kInf, 0, kInf};
constexpr Quantity<double> kFraction = {"fraction", "a fraction", "fraction", fraction_from_json,
                                        format_number, 0.5, -kInf, kInf, 0, 1};

const json& empty_object() {
  static const json kEmpty = json::object();
  return kEmpty;
}

// A default as JSON the reader reads back to exactly the same value: numbers as
// numbers, durations as a whole count of their largest exact unit ("30m", "1500ms").
json default_json(bool v) { return v; }
json default_json(const std::string& v) { return v; }
json default_json(double v) { return v; }
json default_json(int64_t v) { return v; }
json default_json(core::Duration d) {
  static constexpr std::array<std::pair<int64_t, const char*>, 6> kUnits = {{
      {86'400'000'000'000, "d"}, {3'600'000'000'000, "h"}, {60'000'000'000, "m"},
      {1'000'000'000, "s"}, {1'000'000, "ms"}, {1'000, "us"}}};
  for (const auto& [ns, unit] : kUnits) {
    if (d.ns() % ns == 0) return fmt::format("{}{}", d.ns() / ns, unit);
  }
  return fmt::format("{}ns", d.ns());
}

std::string in_quotes(std::string_view s) { return fmt::format("\"{}\"", s); }

// "in [a, b]", ">= a", "<= b" or "" for the bounds that differ from (lowest, highest).
template <class T>
std::string range_text(const Quantity<T>& q, T min, T max, T lowest, T highest) {
  const bool has_min = min != lowest;
  const bool has_max = max != highest;
  if (has_min && has_max) return fmt::format("in [{}, {}]", q.format(min), q.format(max));
  if (has_min) return ">= " + q.format(min);
  if (has_max) return "<= " + q.format(max);
  return "";
}

}  // namespace

// Docs shared by a reader tree, one per key path, in first-read order.
struct DocSink {
  std::vector<ParamDoc> list;
  std::set<std::string, std::less<>> keys;
};

struct ObjectReader::State {
  const json* obj = nullptr;
  std::string path;
  std::shared_ptr<const std::string> file;
  bool describe = false;
  ErrorList* errors = nullptr;  // collecting mode when set (see reader.h)
  std::set<std::string, std::less<>> known;
  std::set<std::string, std::less<>> reported;  // unknown keys already reported
  // Nested readers in creation order, by path; reused so that reading the same object twice
  // accumulates known keys in one place.
  std::vector<std::shared_ptr<State>> children;
  std::map<std::string, size_t, std::less<>> child_index;  // path -> position in children
  std::string doc_path;  // path with list indices as "*": docs describe parameters, not elements
  std::string next_unit;  // unit() of the next parameter recorded
  std::shared_ptr<DocSink> docs;
  std::shared_ptr<DefaultLog> defaults;  // null: defaults are not logged
};

ObjectReader::ObjectReader(std::shared_ptr<State> state) : state_(std::move(state)) {}

ObjectReader::ObjectReader(const json& obj, std::string path,
                           std::shared_ptr<const std::string> file, ErrorList* errors)
    : state_(std::make_shared<State>()) {
  state_->obj = &obj;
  state_->path = std::move(path);
  state_->file = std::move(file);
  state_->errors = errors;
  state_->doc_path = state_->path;
  state_->docs = std::make_shared<DocSink>();
  if (!obj.is_object()) fail("", "expected an object, got " + describe_value(obj));
}

ObjectReader ObjectReader::describe(std::string path) {
  ObjectReader reader(empty_object(), std::move(path));
  reader.state_->describe = true;
  return reader;
}

template <class T>
std::optional<T> ObjectReader::absent(std::string_view key, Need need, std::optional<T> def,
                                      T placeholder) const {
  if (need == Need::kDefault) {
    note_default(key, default_json(*def));
    return def;
  }
  if (need == Need::kOptional) return std::nullopt;
  if (!describing()) report_missing(key);
  return placeholder;
}

template <class T>
std::optional<T> ObjectReader::get(std::string_view key, const Quantity<T>& q, Need need,
                                   std::optional<T> def, std::string_view help, T min, T max) {
  record({std::string(key), std::string(q.kind), std::string(q.unit), need == Need::kRequired,
          def ? q.format(*def) : "", std::string(help),
          range_text(q, min, max, q.natural_min, q.natural_max)});
  const json* value = lookup(key);
  const T placeholder = std::max(min, std::min(q.placeholder, max));
  if (value == nullptr) return absent(key, need, def, placeholder);
  const std::optional<T> fallback =
      need == Need::kOptional ? std::nullopt : std::optional<T>(def.value_or(placeholder));
  T result;
  try {
    result = q.from_json(*value);
  } catch (const std::invalid_argument& e) {
    report(key, e.what());
    return fallback;
  }
  if (result < min || result > max) {
    report(key, fmt::format("expected {} {}, got {}", q.noun,
                            range_text(q, min, max, q.lowest, q.highest), q.format(result)));
    return fallback;
  }
  return result;
}

// The three getters of each quantity kind, from one row per kind.
#define GOODSIM_READER_QUANTITY(name, T, quantity)                                          \
  T ObjectReader::name(std::string_view key, std::string_view help, T min, T max) {         \
    return *get<T>(key, quantity, Need::kRequired, std::nullopt, help, min, max);           \
  }                                                                                         \
  T ObjectReader::name(std::string_view key, T def, std::string_view help, T min, T max) {  \
    return *get<T>(key, quantity, Need::kDefault, def, help, min, max);                     \
  }                                                                                         \
  std::optional<T> ObjectReader::optional_##name(std::string_view key, std::string_view help, \
                                                 T min, T max) {                            \
    return get<T>(key, quantity, Need::kOptional, std::nullopt, help, min, max);            \
  }
GOODSIM_READER_QUANTITY(number, double, kNumber)
GOODSIM_READER_QUANTITY(count, int64_t, kCount)
GOODSIM_READER_QUANTITY(duration, core::Duration, kDuration)
GOODSIM_READER_QUANTITY(bandwidth_bps, double, kBandwidth)
GOODSIM_READER_QUANTITY(flops, double, kFlops)
GOODSIM_READER_QUANTITY(bytes, double, kBytes)
GOODSIM_READER_QUANTITY(fraction, double, kFraction)
#undef GOODSIM_READER_QUANTITY

std::optional<bool> ObjectReader::get_boolean(std::string_view key, Need need,
                                              std::optional<bool> def, std::string_view help) {
  record({std::string(key), "bool", "", need == Need::kRequired,
          def ? (*def ? "true" : "false") : "", std::string(help), ""});
  const json* value = lookup(key);
  if (value == nullptr) return absent(key, need, def, false);
  if (!value->is_boolean()) {
    report(key, "expected true or false, got " + describe_value(*value));
    return need == Need::kOptional ? std::nullopt : std::optional<bool>(def.value_or(false));
  }
  return value->get<bool>();
}

bool ObjectReader::boolean(std::string_view key, std::string_view help) {
  return *get_boolean(key, Need::kRequired, std::nullopt, help);
}
bool ObjectReader::boolean(std::string_view key, bool def, std::string_view help) {
  return *get_boolean(key, Need::kDefault, def, help);
}
std::optional<bool> ObjectReader::optional_boolean(std::string_view key, std::string_view help) {
  return get_boolean(key, Need::kOptional, std::nullopt, help);
}

std::optional<std::string> ObjectReader::get_string(std::string_view key, Need need,
                                                    std::optional<std::string> def,
                                                    std::string_view help,
                                                    const std::vector<std::string>* options) {
  // Options known only with the scenario (site names) are blank while describing.
  const bool listed = options != nullptr && std::any_of(options->begin(), options->end(),
                                                        [](const auto& o) { return !o.empty(); });
  record({std::string(key), options ? "choice" : "string", "", need == Need::kRequired,
          def ? in_quotes(*def) : "", std::string(help),
          listed ? "one of " + quoted_list(*options) : ""});
  const json* value = lookup(key);
  const std::string placeholder = (options && !options->empty()) ? options->front() : "";
  if (value == nullptr) return absent(key, need, def, placeholder);
  const std::string expected = options ? "one of " + quoted_list(*options) : "a string";
  if (!value->is_string()) {
    report(key, fmt::format("expected {}, got {}", expected, describe_value(*value)));
    if (need == Need::kOptional) return std::nullopt;
    return def.value_or(placeholder);
  }
  const auto& text = value->get_ref<const std::string&>();
  if (options && std::find(options->begin(), options->end(), text) == options->end()) {
    const auto match = closest_match(text, *options);
    report(key, fmt::format("expected {}, got {}{}", expected, describe_value(*value),
                            match ? fmt::format("; did you mean \"{}\"?", *match) : ""));
    if (need == Need::kOptional) return std::nullopt;
    return def.value_or(placeholder);
  }
  return text;
}

std::string ObjectReader::string(std::string_view key, std::string_view help) {
  return *get_string(key, Need::kRequired, std::nullopt, help, nullptr);
}
std::string ObjectReader::string(std::string_view key, std::string def, std::string_view help) {
  return *get_string(key, Need::kDefault, std::move(def), help, nullptr);
}
std::optional<std::string> ObjectReader::optional_string(std::string_view key,
                                                         std::string_view help) {
  return get_string(key, Need::kOptional, std::nullopt, help, nullptr);
}

std::string ObjectReader::choice(std::string_view key, const std::vector<std::string>& options,
                                 std::string_view help) {
  return *get_string(key, Need::kRequired, std::nullopt, help, &options);
}
std::string ObjectReader::choice(std::string_view key, const std::vector<std::string>& options,
                                 std::string def, std::string_view help) {
  return *get_string(key, Need::kDefault, std::move(def), help, &options);
}

ObjectReader ObjectReader::object(std::string_view key, std::string_view help) {
  record({std::string(key), "object", "", true, "", std::string(help), ""});
  const json* value = lookup(key);
  if (value == nullptr) {
    if (!describing()) report_missing(key);
    return child(empty_object(), key_path(key), doc_path(key), true);
  }
  return child(*value, key_path(key), doc_path(key));
}

std::optional<ObjectReader> ObjectReader::optional_object(std::string_view key,
                                                          std::string_view help) {
  record({std::string(key), "object", "", false, "", std::string(help), ""});
  const json* value = lookup(key);
  if (value == nullptr) {
    if (!describing()) return std::nullopt;
    return child(empty_object(), key_path(key), doc_path(key));
  }
  return child(*value, key_path(key), doc_path(key));
}

std::vector<ObjectReader> ObjectReader::get_object_list(std::string_view key,
                                                        std::string_view help, bool required) {
  record({std::string(key), "list of objects", "", required, "", std::string(help), ""});
  const std::string element_doc_path = join_path(doc_path(key), "*");
  const json* value = lookup(key);
  if (value == nullptr) {
    if (describing()) {
      return {child(empty_object(), join_path(key_path(key), "*"), element_doc_path)};
    }
    if (required) report_missing(key);
    return {};
  }
  if (!value->is_array()) {
    report(key, "expected a list of objects, got " + describe_value(*value));
    return {};
  }
  std::vector<ObjectReader> out;
  out.reserve(value->size());
  for (size_t i = 0; i < value->size(); ++i) {
    out.push_back(
        child((*value)[i], join_path(key_path(key), std::to_string(i)), element_doc_path));
  }
  return out;
}

std::vector<ObjectReader> ObjectReader::object_list(std::string_view key,
                                                    std::string_view help) {
  return get_object_list(key, help, true);
}
std::vector<ObjectReader> ObjectReader::optional_object_list(std::string_view key,
                                                             std::string_view help) {
  return get_object_list(key, help, false);
}

const json& ObjectReader::raw(std::string_view key, std::string_view help) {
  static const json kNull;
  record({std::string(key), "json", "", false, "", std::string(help), ""});
  const json* value = lookup(key);
  return value ? *value : kNull;
}

bool ObjectReader::has(std::string_view key) const { return lookup(key) != nullptr; }

void ObjectReader::finish() const {
  if (state_->describe) return;
  // An object where reading stopped early has keys that were never asked about.
  if (state_->errors != nullptr && state_->errors->stopped_at(state_->path)) return;
  const json& obj = *state_->obj;
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    if (state_->known.count(it.key()) != 0 || state_->reported.count(it.key()) != 0) continue;
    const std::vector<std::string> candidates(state_->known.begin(), state_->known.end());
    report(it.key(), "unknown key; " + key_hint(it.key(), candidates), false);
  }
  for (const auto& child_state : state_->children) ObjectReader(child_state).finish();
}

void ObjectReader::fail(std::string_view key, std::string_view message) const {
  throw ScenarioError(state_->file ? *state_->file : "", key_path(key), std::string(message));
}

void ObjectReader::report(std::string_view key, std::string_view message, bool replaced) const {
  if (state_->errors == nullptr) fail(key, message);
  state_->errors->add(
      ScenarioError(state_->file ? *state_->file : "", key_path(key), std::string(message)),
      replaced);
}

// A required key is most often missing because it is misspelled: the unknown keys close to
// it come first, with the suggestion, then the missing key.
void ObjectReader::report_missing(std::string_view key) const {
  const std::string file = state_->file ? *state_->file : "";
  std::vector<ScenarioError> found;
  const json& obj = *state_->obj;
  const std::vector<std::string> wanted{std::string(key)};
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    if (state_->known.count(it.key()) != 0 || !closest_match(it.key(), wanted)) continue;
    state_->reported.insert(it.key());
    found.emplace_back(file, key_path(it.key()), "unknown key; " + key_hint(it.key(), wanted));
  }
  found.emplace_back(file, key_path(""), fmt::format("missing required key \"{}\"", key));
  if (state_->errors == nullptr) throw ScenarioError::combined(std::move(found), 0);
  for (size_t i = 0; i < found.size(); ++i) state_->errors->add(found[i], i + 1 == found.size());
}

bool ObjectReader::describing() const { return state_->describe; }
const std::string& ObjectReader::path() const { return state_->path; }
std::string ObjectReader::key_path(std::string_view key) const {
  return join_path(state_->path, key);
}
const std::vector<ParamDoc>& ObjectReader::docs() const { return state_->docs->list; }
std::string ObjectReader::doc_path(std::string_view key) const {
  return join_path(state_->doc_path, key);
}

const json* ObjectReader::lookup(std::string_view key) const {
  state_->known.emplace(key);
  const auto it = state_->obj->find(std::string(key));
  if (it == state_->obj->end() || it->is_null()) return nullptr;
  return &*it;
}

void ObjectReader::log_defaults_to(std::shared_ptr<DefaultLog> log) {
  state_->defaults = std::move(log);
}

void ObjectReader::note_default(std::string_view key, json value) const {
  if (state_->defaults == nullptr || describing()) return;
  state_->defaults->entries.emplace_back(key_path(key), std::move(value));
}

ObjectReader& ObjectReader::unit(std::string_view unit) {
  state_->next_unit = unit;
  return *this;
}

void ObjectReader::record(ParamDoc doc) {
  doc.key = doc_path(doc.key);
  if (!state_->next_unit.empty()) doc.unit = std::move(state_->next_unit);
  state_->next_unit.clear();
  DocSink& sink = *state_->docs;
  if (sink.keys.insert(doc.key).second) sink.list.push_back(std::move(doc));
}

ObjectReader ObjectReader::child(const json& value, std::string path, std::string doc_path,
                                 bool placeholder) {
  if (const auto it = state_->child_index.find(path); it != state_->child_index.end()) {
    return ObjectReader(state_->children[it->second]);
  }
  if (!value.is_object()) {
    const ScenarioError e(state_->file ? *state_->file : "", path,
                          "expected an object, got " + describe_value(value));
    if (state_->errors == nullptr) throw e;
    state_->errors->add(e);
    return child(empty_object(), std::move(path), std::move(doc_path), true);
  }
  auto state = std::make_shared<State>();
  state->obj = &value;
  state->path = std::move(path);
  state->doc_path = std::move(doc_path);
  state->file = state_->file;
  state->errors = state_->errors;
  state->describe = state_->describe || placeholder;
  state->docs = state_->docs;
  state->defaults = state_->defaults;
  state_->child_index.emplace(state->path, state_->children.size());
  state_->children.push_back(state);
  return ObjectReader(std::move(state));
}

}  // namespace goodsim::scenario
