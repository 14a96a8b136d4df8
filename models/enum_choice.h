// Reading a scenario choice straight into a typed value (an enum, a Domain,
// a flag): every key whose value is one of a fixed set of names is read
// through read_enum, so the did-you-mean message, the list-models table and
// the mapping from name to value live in one place.
#pragma once

#include <algorithm>
#include <initializer_list>
#include <string>
#include <string_view>
#include <type_traits>  // std::type_identity_t
#include <utility>
#include <vector>

#include "sim/cluster/layout.h"
#include "sim/scenario/reader.h"

namespace goodsim::models {

// The names a key accepts and the value each one stands for, in the order
// they are listed to the user.
template <class T>
using EnumOptions = std::vector<std::pair<std::string, T>>;

namespace enum_choice_detail {

template <class T>
std::vector<std::string> names_of(const EnumOptions<T>& options) {
  std::vector<std::string> names;
  names.reserve(options.size());
  for (const auto& [name, value] : options) names.push_back(name);
  return names;
}

// The value named `name`; the first option's when none is (only a
// describe-mode reader returns a name outside the options).
template <class T>
T value_of(const EnumOptions<T>& options, std::string_view name) {
  const auto it = std::find_if(options.begin(), options.end(),
                               [&](const auto& o) { return o.first == name; });
  return it == options.end() ? options.front().second : it->second;
}

}  // namespace enum_choice_detail

// The value of the required key `key`, one of `options`.
// REQUIRES: options is not empty.
template <class T>
T read_enum(scenario::ObjectReader& r, std::string_view key,
            const std::type_identity_t<EnumOptions<T>>& options, std::string_view help) {
  return enum_choice_detail::value_of(options,
                                      r.choice(key, enum_choice_detail::names_of(options), help));
}

// The value of `key`, one of `options`; `def` when the key is absent.
// REQUIRES: `def` is the value of one of the options.
template <class T>
T read_enum(scenario::ObjectReader& r, std::string_view key,
            const std::type_identity_t<EnumOptions<T>>& options, T def, std::string_view help) {
  const auto d = std::find_if(options.begin(), options.end(),
                              [&](const auto& o) { return o.second == def; });
  return enum_choice_detail::value_of(
      options, r.choice(key, enum_choice_detail::names_of(options), d->first, help));
}

// Options naming `domains` by cluster::domain_name ("chip", "host", ...).
inline EnumOptions<cluster::Domain> domain_options(std::initializer_list<cluster::Domain> domains) {
  EnumOptions<cluster::Domain> options;
  for (cluster::Domain d : domains) options.emplace_back(cluster::domain_name(d), d);
  return options;
}

}  // namespace goodsim::models
