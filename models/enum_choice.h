// Reading a scenario choice straight into an enum.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "sim/scenario/reader.h"

namespace goodsim::models {

// The value of `key`, one of `options` (default: the option of `def`), as the
// enum whose values 0, 1, ... name the options in the same order.
// REQUIRES: static_cast<size_t>(def) < options.size().
template <class Enum>
Enum read_enum(scenario::ObjectReader& r, std::string_view key,
               const std::vector<std::string>& options, Enum def, std::string_view help) {
  const std::string v = r.choice(key, options, options.at(static_cast<size_t>(def)), help);
  const auto it = std::find(options.begin(), options.end(), v);
  return it == options.end() ? def : static_cast<Enum>(it - options.begin());
}

}  // namespace goodsim::models
