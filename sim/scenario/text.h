// Small text helpers shared by every parser of user text (units, --set
// overrides, CSV files, trace files, sweep grids): one definition of what
// "blank" means and of a plain decimal number, so the parsers agree.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace goodsim::scenario {

// Characters trim() removes by default: spaces and tabs (not line breaks,
// which end a record in line-based formats).
inline constexpr std::string_view kBlanks = " \t";
// Blanks and line breaks: for a value that is a whole text, like "250ms\n".
inline constexpr std::string_view kWhitespace = " \t\r\n";

// `s` without leading and trailing characters of `strip`. A view into `s`.
constexpr std::string_view trim(std::string_view s, std::string_view strip = kBlanks) {
  const size_t first = s.find_first_not_of(strip);
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(strip) - first + 1);
}

// The value of `text` when it is 1 to `max_digits` plain decimal digits ("-1",
// "+1", " 1", "1e0" and "" are not), else nullopt. REQUIRES: max_digits <= 19,
// so the value fits in 64 bits.
constexpr std::optional<uint64_t> parse_digits(std::string_view text, size_t max_digits) {
  if (text.empty() || text.size() > max_digits) return std::nullopt;
  uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  return v;
}

// `items` in double quotes, separated by commas: "a", "b", "c".
inline std::string quoted_list(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) {
    if (!out.empty()) out += ", ";
    out += '"' + item + '"';
  }
  return out;
}

}  // namespace goodsim::scenario
