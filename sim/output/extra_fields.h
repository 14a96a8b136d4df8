// ExtraFields: typed, named, documented values a policy adds to its own part of
// summary.json — its "diagnostics" object (Diagnostics::extra) or each of its
// "learners" (LearnerResult::extra) — without the output layer knowing the
// policy. Each field has a key, a value (null, a number, an integer or a
// text), a unit and a one-line doc; summary_json() writes the fields after the
// built-in keys, in the order they were declared, and `goodsim explain` and
// scripts read them back by key.
//
// A field every policy's summary carries (null where a policy does not set
// it) is declared in the output layer's defaults (diagnostics_fields(),
// learner_fields() below), so summary.json keeps one shape across policies;
// a field only one policy reports is added by that policy with add().
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace goodsim::output {

class ExtraFields {
 public:
  using Value = std::variant<std::monostate, double, int64_t, std::string>;  // monostate: null
  struct Field {
    std::string key;
    Value value;
    std::string unit;  // "inner steps", "s", "count", "fraction", ...
    std::string doc;
  };

  // Declares `key` with a null value, at the end. REQUIRES: not yet declared.
  void declare(std::string key, std::string unit, std::string doc);
  // Sets the value of a declared key. REQUIRES: declared.
  void set(std::string_view key, Value value);
  // Sets a number, or null when `v` is empty. REQUIRES: declared.
  void set_number(std::string_view key, const std::optional<double>& v);
  // declare() then set().
  void add(std::string key, Value value, std::string unit, std::string doc);

  // The field named `key`, or null.
  const Field* find(std::string_view key) const;
  // The value of `key` as a number (an integer converts); nullopt when the key
  // is absent, null or a text.
  std::optional<double> number(std::string_view key) const;
  const std::vector<Field>& fields() const { return fields_; }

 private:
  Field* find_mutable(std::string_view key);

  std::vector<Field> fields_;
};

// Fields every policy's "diagnostics" carries, null until a policy sets them.
ExtraFields diagnostics_fields();
// Fields every entry of a policy's "learners" carries, null until set.
ExtraFields learner_fields();

}  // namespace goodsim::output
