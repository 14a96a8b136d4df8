// Strict, typed reading of scenario JSON objects, with self-documentation.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/core/time.h"
#include "sim/scenario/error.h"

namespace goodsim::scenario {

// One parameter as a model reads it; `goodsim list-models` prints these.
struct ParamDoc {
  std::string key;           // dotted path from the root reader, list indices written as
                             // "*": "links.*.bandwidth" (one entry however many elements)
  std::string kind;          // "number", "count", "duration", "bandwidth", "flops", "bytes",
                             // "fraction", "bool", "string", "choice", "object",
                             // "list of objects", "json"
  std::string unit;          // unit of the value: "s" (durations), "bit/s", "FLOP/s",
                             // "bytes", "fraction", "count", or what unit() declared
                             // ("1/chip-year", "tokens"); empty for bool, string, choice,
                             // objects
  bool required = false;
  std::string default_text;  // formatted default ("30m", "0.5", "\"fifo\""); empty if none
  std::string help;
  std::string range;         // ">= 1", "in [0, 1]", "<= 1y", one of "a", "b"; empty if any
};

// The defaults a scenario's readers applied: one (key path, value) per key that was absent
// (or null) and read with a default, the value in a form the reader reads back to the same
// quantity. Shared by every reader of one scenario (see ObjectReader::log_defaults_to()), so
// the scenario can be written out with its defaults filled in (summary.json "resolved").
struct DefaultLog {
  std::vector<std::pair<std::string, nlohmann::json>> entries;  // in reading order
};

namespace detail {
template <class T>
struct Quantity;  // how one kind of value is read, checked and formatted (reader.cc)
enum class Need { kRequired, kDefault, kOptional };
}  // namespace detail

// ObjectReader: strict typed access to one JSON object of a scenario.
//
// Getters come in three forms per kind:
//   T x(key, help, [min, max])            required; missing -> ScenarioError
//   T x(key, default, help, [min, max])   optional with a default
//   std::optional<T> optional_x(key, help, [min, max])   absent -> nullopt
// A key whose value is JSON null counts as absent (so "--set key=null" restores the default).
// Values are converted with the parsers of units.h; errors are ScenarioErrors carrying the
// file and the key's full path, e.g.
//   "x.json: cluster.chips: expected a count >= 1, got -5"
//   "x.json: horizon: expected a duration string like "30s", got true"
//   "x.json: cluster: missing required key "chips""
// Ranges are inclusive. Defaults are not range-checked (they are the programmer's).
//
// Strictness: every key the reader is asked about (by any getter, has(), raw(), object...)
// becomes a known key. finish() then rejects the first key of the object (in sorted order)
// that is not known: "cluster.chps: unknown key; did you mean "chips"?" (or the list of valid
// keys when nothing is close). finish() also checks every nested reader obtained through
// object()/object_list(), so calling it once on the root checks the whole tree; calling it
// again on a child is harmless.
//
// Collecting mode (validation reports every error in one pass): a reader made
// with an ErrorList adds the errors it finds there instead of throwing and goes
// on with a stand-in value (the default if there is one, else describe mode's
// placeholder): bad values, missing keys, values of the wrong type, and every
// unknown key at finish() (except in an object whose reading a thrown error
// stopped: see ErrorList::attempt()). A nested object that is missing or not
// an object is read in describe mode. fail() still throws (cross-field checks
// cannot go on); callers record it with ErrorList::attempt(). The list must
// outlive the reader; children share it.
//
// Describe mode: ObjectReader::describe() makes a reader over an empty object that never
// throws for missing keys and records a ParamDoc for every getter call. Run a model's
// from_json(ObjectReader&) on it to collect the model's parameters for `list-models`:
//   - getters with a default return the default; optional_x returns nullopt;
//   - required getters return a harmless placeholder: 1 (clamped into [min, max]) for
//     numbers, counts and unit quantities, 1s (clamped) for durations, 0.5 (clamped) for
//     fractions, false, "" or the first option of a choice;
//   - object()/optional_object() return a describing child, object_list() a list of exactly
//     one describing child whose path ends in ".*"; raw() returns null; has() is false;
//   - finish() does nothing.
// Model code should skip cross-field validation when describing() is true (placeholders may
// violate it); fail() still throws, so list-models should catch ScenarioError and keep the
// docs collected so far.
//
// Ownership: the reader refers to the JSON it was given, which must outlive it and every
// reader obtained from it. A reader is a cheap handle: copies share the same state (known
// keys, children, docs). Not thread-safe.
class ObjectReader {
 public:
  static constexpr double kInf = std::numeric_limits<double>::infinity();
  static constexpr int64_t kMaxCount = std::numeric_limits<int64_t>::max();

  // Reads `obj` found at `path` of `file` (the file name used in messages; may be null).
  // Throws ScenarioError if obj is not an object.
  // With `errors`, the reader collects errors there (see above).
  ObjectReader(const nlohmann::json& obj, std::string path,
               std::shared_ptr<const std::string> file = nullptr, ErrorList* errors = nullptr);
  // The reader keeps a reference: a temporary JSON would dangle.
  ObjectReader(const nlohmann::json&& obj, std::string path,
               std::shared_ptr<const std::string> file = nullptr,
               ErrorList* errors = nullptr) = delete;
  // A describing reader (see above); `path` prefixes the documented keys.
  static ObjectReader describe(std::string path = "");

  // Getters of quantities, one row per kind (see GOODSIM_READER_QUANTITY below): each row
  // declares name(key, help, min, max), name(key, default, help, min, max) and
  // optional_name(key, help, min, max) with the kind's natural bounds as default range.
#define GOODSIM_READER_QUANTITY(name, T, lowest, highest)                                   \
  T name(std::string_view key, std::string_view help, T min = lowest, T max = highest);     \
  T name(std::string_view key, T def, std::string_view help, T min = lowest,                \
         T max = highest);                                                                  \
  std::optional<T> optional_##name(std::string_view key, std::string_view help,             \
                                   T min = lowest, T max = highest);
  // Any JSON number.
  GOODSIM_READER_QUANTITY(number, double, -kInf, kInf)
  // A whole number: 128, 1.2e6 or "1.2e6".
  GOODSIM_READER_QUANTITY(count, int64_t, 0, kMaxCount)
  // "30s", "36h", "1y", "1h30m", or a number of seconds.
  GOODSIM_READER_QUANTITY(duration, core::Duration, core::Duration::zero(),
                          core::Duration::max())
  // Bits per second: "100Gbps", "25GB/s", or a number of bits per second.
  GOODSIM_READER_QUANTITY(bandwidth_bps, double, 0, kInf)
  // FLOP per second: "459TFLOPS", 2e14.
  GOODSIM_READER_QUANTITY(flops, double, 0, kInf)
  // Bytes: "16GiB", "2.3TB", or a number of bytes.
  GOODSIM_READER_QUANTITY(bytes, double, 0, kInf)
  // A fraction, 0.25 or "25%", within [min, max] (by default [0, 1]).
  GOODSIM_READER_QUANTITY(fraction, double, 0, 1)
#undef GOODSIM_READER_QUANTITY

  // Declares the unit of the next parameter read through this reader, for the
  // docs (list-models); numbers have none unless declared. Returns *this:
  //   r.unit("1/chip-year").number("rate", 0.5, "slowdowns per chip-year")
  ObjectReader& unit(std::string_view unit);

  // JSON true/false only.
  bool boolean(std::string_view key, std::string_view help);
  bool boolean(std::string_view key, bool def, std::string_view help);
  std::optional<bool> optional_boolean(std::string_view key, std::string_view help);

  // A JSON string.
  std::string string(std::string_view key, std::string_view help);
  std::string string(std::string_view key, std::string def, std::string_view help);
  std::optional<std::string> optional_string(std::string_view key, std::string_view help);

  // A JSON string that must be one of `options` (did-you-mean on a near miss).
  std::string choice(std::string_view key, const std::vector<std::string>& options,
                     std::string_view help);
  std::string choice(std::string_view key, const std::vector<std::string>& options,
                     std::string def, std::string_view help);

  // Nested objects. object() requires the key; optional_object() returns nullopt when absent.
  ObjectReader object(std::string_view key, std::string_view help = "");
  std::optional<ObjectReader> optional_object(std::string_view key, std::string_view help = "");
  // A list of objects; elements have paths "key.0", "key.1"... object_list() requires the
  // key (an empty list is fine); optional_object_list() returns {} when absent.
  std::vector<ObjectReader> object_list(std::string_view key, std::string_view help = "");
  std::vector<ObjectReader> optional_object_list(std::string_view key,
                                                 std::string_view help = "");

  // The value itself, unchecked (null JSON when absent). Marks the key known.
  const nlohmann::json& raw(std::string_view key, std::string_view help = "");

  // True if the key is present and not null. Marks the key known (see class comment).
  bool has(std::string_view key) const;

  // Throws ScenarioError on the first unknown key here or in any nested reader
  // (collecting mode: records every one).
  void finish() const;

  // Throws ScenarioError at this object's key (or at the object itself when key is empty).
  // For model-level checks: r.fail("quorum", "must not exceed learners (8)").
  [[noreturn]] void fail(std::string_view key, std::string_view message) const;

  bool describing() const;
  const std::string& path() const;
  std::string key_path(std::string_view key) const;  // path() joined with key
  // Docs of every parameter read so far through this reader tree (root and all children,
  // shared between them), in first-read order, one entry per key path (list elements
  // share "key.*" entries; the first reading wins).
  const std::vector<ParamDoc>& docs() const;
  // From now on this reader and every reader obtained from it append the defaults they
  // apply to `log` (nothing in describe mode). `log` may be null (stop logging).
  void log_defaults_to(std::shared_ptr<DefaultLog> log);

 private:
  struct State;
  explicit ObjectReader(std::shared_ptr<State> state);

  template <class T>
  std::optional<T> get(std::string_view key, const detail::Quantity<T>& quantity,
                       detail::Need need, std::optional<T> def, std::string_view help, T min,
                       T max);
  const nlohmann::json* lookup(std::string_view key) const;
  // What a read of an absent key returns: `def` (noted as the default taken)
  // when the key has a default, nothing when it is optional, else
  // `placeholder`, after reporting the key missing (not while describing).
  template <class T>
  std::optional<T> absent(std::string_view key, detail::Need need, std::optional<T> def,
                          T placeholder) const;
  void record(ParamDoc doc);  // doc.key: the key within this object
  std::string doc_path(std::string_view key) const;
  // `placeholder`: read the child in describe mode (it stands for a missing object).
  ObjectReader child(const nlohmann::json& value, std::string path, std::string doc_path,
                     bool placeholder = false);
  std::optional<std::string> get_string(std::string_view key, detail::Need need,
                                        std::optional<std::string> def, std::string_view help,
                                        const std::vector<std::string>* options);
  std::vector<ObjectReader> get_object_list(std::string_view key, std::string_view help,
                                            bool required);
  std::optional<bool> get_boolean(std::string_view key, detail::Need need,
                                  std::optional<bool> def, std::string_view help);
  // Records that `key` took its default `value` (a no-op without a log).
  void note_default(std::string_view key, nlohmann::json value) const;
  // Throws, or records in collecting mode.
  // `replaced`: the value read is a stand-in (ErrorList::add).
  void report(std::string_view key, std::string_view message, bool replaced = true) const;
  void report_missing(std::string_view key) const;

  std::shared_ptr<State> state_;
};

}  // namespace goodsim::scenario
