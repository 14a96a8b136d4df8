#include "sim/output/extra_fields.h"

#include <utility>

#include "sim/core/check.h"

namespace goodsim::output {

void ExtraFields::declare(std::string key, std::string unit, std::string doc) {
  GOODSIM_CHECK_MSG(find(key) == nullptr, "extra field declared twice: " + key);
  fields_.push_back({std::move(key), std::monostate{}, std::move(unit), std::move(doc)});
}

void ExtraFields::set(std::string_view key, Value value) {
  Field* f = find_mutable(key);
  GOODSIM_CHECK_MSG(f != nullptr, "extra field set before it was declared: " + std::string(key));
  f->value = std::move(value);
}

void ExtraFields::set_number(std::string_view key, const std::optional<double>& v) {
  set(key, v ? Value(*v) : Value(std::monostate{}));
}

void ExtraFields::add(std::string key, Value value, std::string unit, std::string doc) {
  const std::string name = key;
  declare(std::move(key), std::move(unit), std::move(doc));
  set(name, std::move(value));
}

const ExtraFields::Field* ExtraFields::find(std::string_view key) const {
  for (const Field& f : fields_) {
    if (f.key == key) return &f;
  }
  return nullptr;
}

ExtraFields::Field* ExtraFields::find_mutable(std::string_view key) {
  return const_cast<Field*>(std::as_const(*this).find(key));
}

std::optional<double> ExtraFields::number(std::string_view key) const {
  const Field* f = find(key);
  if (f == nullptr) return std::nullopt;
  if (const auto* d = std::get_if<double>(&f->value)) return *d;
  if (const auto* i = std::get_if<int64_t>(&f->value)) return static_cast<double>(*i);
  return std::nullopt;
}

ExtraFields diagnostics_fields() {
  ExtraFields f;
  f.declare("mean_staleness", "inner steps",
            "decoupled_diloco: mean staleness of the merged contributions; null otherwise");
  f.declare("all_paused_fraction", "fraction",
            "decoupled_diloco: share of the run with every learner paused at once (no learner "
            "training), 1 - uptime; null otherwise");
  return f;
}

ExtraFields learner_fields() {
  ExtraFields f;
  f.declare("mean_staleness", "inner steps",
            "decoupled_diloco: mean staleness of this learner's merged contributions (null if "
            "none was merged); null for diloco");
  return f;
}

}  // namespace goodsim::output
