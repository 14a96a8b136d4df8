#include "sim/scenario/units.h"

#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <optional>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/scenario/error.h"
#include "sim/scenario/text.h"

namespace goodsim::scenario {
namespace {

// Just under INT64_MAX nanoseconds (~292 years), with room for rounding.
constexpr double kMaxDurationNs = 9.2e18;
constexpr double kCountLimit = 9223372036854775808.0;  // 2^63

constexpr std::string_view kDurationExpected = R"(a duration like "30s", "36h" or "1y")";
constexpr std::string_view kCountExpected = "a count (a whole number like 128 or 1.2e6)";

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

[[noreturn]] void reject(std::string_view expected, std::string_view text,
                         std::string_view detail = {}) {
  std::string message = fmt::format("expected {}, got \"{}\"", expected, text);
  if (!detail.empty()) message += fmt::format(" ({})", detail);
  throw std::invalid_argument(message);
}

[[noreturn]] void reject_negative(std::string_view noun, std::string_view text) {
  throw std::invalid_argument(fmt::format("expected a non-negative {}, got \"{}\"", noun, text));
}

struct ScannedNumber {
  double value = 0;
  std::string_view text;  // the number itself, sign included
  std::string_view rest;  // what follows, leading spaces removed
};

size_t skip_digits(std::string_view s, size_t i, size_t* count) {
  while (i < s.size() && is_digit(s[i])) {
    ++i;
    ++*count;
  }
  return i;
}

// Reads a leading decimal number ("-1.5e3"). An "e" only starts an exponent when digits
// follow, so "1EB" is one exabyte. No inf/nan spellings, no hex.
std::optional<ScannedNumber> scan_number(std::string_view s) {
  size_t i = (!s.empty() && (s[0] == '+' || s[0] == '-')) ? 1 : 0;
  size_t digits = 0;
  i = skip_digits(s, i, &digits);
  if (i < s.size() && s[i] == '.') i = skip_digits(s, i + 1, &digits);
  if (digits == 0) return std::nullopt;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    size_t j = i + 1;
    if (j < s.size() && (s[j] == '+' || s[j] == '-')) ++j;
    size_t exponent_digits = 0;
    j = skip_digits(s, j, &exponent_digits);
    if (exponent_digits > 0) i = j;
  }
  ScannedNumber out;
  out.text = s.substr(0, i);
  std::string_view digits_text = out.text[0] == '+' ? out.text.substr(1) : out.text;
  const char* end = digits_text.data() + digits_text.size();
  auto [ptr, ec] = std::from_chars(digits_text.data(), end, out.value);
  if (ec != std::errc() || ptr != end || !std::isfinite(out.value)) return std::nullopt;
  out.rest = trim(s.substr(i), kWhitespace);
  return out;
}

// Nanoseconds per duration unit, or 0 when the unit is unknown.
double duration_unit_ns(std::string_view unit) {
  static constexpr std::array<std::pair<std::string_view, double>, 11> kUnits = {{
      {"ns", 1.0}, {"us", 1e3}, {"\u00b5s", 1e3}, {"ms", 1e6}, {"s", 1e9}, {"m", 60e9},
      {"min", 60e9}, {"h", 3600e9}, {"d", 86400e9}, {"w", 7 * 86400e9}, {"y", 365 * 86400e9},
  }};
  for (const auto& [name, ns] : kUnits) {
    if (name == unit) return ns;
  }
  return 0;
}

// The unit word right after a number: everything up to the next digit, space or sign.
std::string_view unit_token(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && !is_digit(s[i]) && !is_space(s[i]) && s[i] != '.' && s[i] != '+' &&
         s[i] != '-') {
    ++i;
  }
  return s.substr(0, i);
}

std::optional<double> si_prefix(char c) {
  switch (c) {
    case 'k': case 'K': return 1e3;
    case 'M': return 1e6;
    case 'G': return 1e9;
    case 'T': return 1e12;
    case 'P': return 1e15;
    case 'E': return 1e18;
    default: return std::nullopt;
  }
}

// Splits a leading SI ("G") or, when allowed, binary ("Gi") prefix off a unit.
std::pair<double, std::string_view> split_prefix(std::string_view unit, bool allow_binary) {
  if (unit.empty()) return {1.0, unit};
  const auto si = si_prefix(unit[0]);
  if (!si) return {1.0, unit};
  if (allow_binary && unit.size() >= 2 && unit[1] == 'i') {
    const double steps = std::round(std::log10(*si) / 3);
    return {std::pow(1024.0, steps), unit.substr(2)};
  }
  return {*si, unit.substr(1)};
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

std::optional<double> bandwidth_scale(std::string_view unit) {
  if (unit.empty()) return 1.0;
  const auto [scale, base] = split_prefix(unit, true);
  if (base == "bps" || base == "b/s" || base == "bit/s") return scale;
  if (base == "Bps" || base == "B/s") return scale * 8;
  return std::nullopt;
}

std::optional<double> flops_scale(std::string_view unit) {
  if (unit.empty()) return 1.0;
  const auto [scale, base] = split_prefix(unit, false);
  if (iequals(base, "flops") || iequals(base, "flop/s")) return scale;
  return std::nullopt;
}

std::optional<double> bytes_scale(std::string_view unit) {
  if (unit.empty()) return 1.0;
  const auto [scale, base] = split_prefix(unit, true);
  if (base == "B") return scale;
  return std::nullopt;
}

// How to read one kind of "number + unit" quantity.
struct ScaledKind {
  std::string_view expected;  // for "expected ..., got ..."
  std::string_view noun;      // for "expected a non-negative ..."
  std::string_view units;     // list of accepted units, for unknown-unit hints
  std::optional<double> (*scale_of)(std::string_view unit);
};

constexpr ScaledKind kBandwidthUnits = {R"(a bandwidth like "100Gbps" or "25GB/s")", "bandwidth",
                                   "use bps, b/s, bit/s, or Bps, B/s for bytes, after a "
                                   "prefix k, M, G, T, P",
                                   bandwidth_scale};
constexpr ScaledKind kFlopsUnits = {R"(a FLOP/s rate like "459TFLOPS" or "2e14")", "FLOP/s rate",
                               "use FLOPS or FLOP/s after a prefix k, M, G, T, P, E",
                               flops_scale};
constexpr ScaledKind kBytesUnits = {R"(a byte size like "16GiB" or "2.3TB")", "byte size",
                               "use B after a prefix k, M, G, T, P, E (x1000) or "
                               "Ki, Mi, Gi, Ti, Pi, Ei (x1024)",
                               bytes_scale};

double parse_scaled(std::string_view text, const ScaledKind& kind) {
  const std::string_view body = trim(text, kWhitespace);
  if (body.empty()) reject(kind.expected, text, "empty");
  const auto number = scan_number(body);
  if (!number) reject(kind.expected, text);
  const auto scale = kind.scale_of(number->rest);
  if (!scale) {
    reject(kind.expected, text, fmt::format("unknown unit \"{}\"; {}", number->rest, kind.units));
  }
  if (number->value < 0) reject_negative(kind.noun, text);
  const double value = number->value * *scale;
  if (!std::isfinite(value)) reject(kind.expected, text, "too large");
  return value;
}

bool is_plain_integer(std::string_view s) {
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) s.remove_prefix(1);
  if (s.empty()) return false;
  for (char c : s) {
    if (!is_digit(c)) return false;
  }
  return true;
}

[[noreturn]] void wrong_type(std::string_view expected, const nlohmann::json& value) {
  throw std::invalid_argument(fmt::format("expected {}, got {}", expected, describe_value(value)));
}

// A quantity given as a number (in base units) or as a text `parse` reads.
double number_or_text(const nlohmann::json& value, double (*parse)(std::string_view),
                      std::string_view expected) {
  if (value.is_string()) return parse(value.get_ref<const std::string&>());
  if (!value.is_number()) wrong_type(expected, value);
  return value.get<double>();
}

// Fixed-point with at most `decimals` digits after the point, trailing zeros dropped.
std::string trimmed_fixed(double value, int decimals) {
  std::string s = fmt::format("{:.{}f}", value, decimals);
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  if (s == "-0") s = "0";
  return s;
}

std::string format_prefixed(double value, std::string_view unit, double base,
                            const std::array<std::string_view, 6>& prefixes) {
  const double magnitude = std::abs(value);
  for (int i = 5; i >= 0; --i) {
    const double scale = std::pow(base, i + 1);
    if (magnitude >= scale) return trimmed_fixed(value / scale, 3) + std::string(prefixes[i]) +
                                   std::string(unit);
  }
  return trimmed_fixed(value, 3) + std::string(unit);
}

std::string format_si(double value, std::string_view unit) {
  return format_prefixed(value, unit, 1000.0, {"k", "M", "G", "T", "P", "E"});
}

// Below a day: "1h 30m", "5m 30s", "2h 0m 5s" style, zero parts left out.
std::string format_clock(uint64_t ns) {
  constexpr uint64_t kMinute = 60 * 1'000'000'000ULL;
  constexpr uint64_t kHour = 60 * kMinute;
  std::string out;
  const auto append = [&out](const std::string& part) {
    if (!out.empty()) out += ' ';
    out += part;
  };
  if (ns >= kHour) append(fmt::format("{}h", ns / kHour));
  if (ns % kHour >= kMinute) append(fmt::format("{}m", ns % kHour / kMinute));
  const std::string seconds = trimmed_fixed(static_cast<double>(ns % kMinute) / 1e9, 3);
  if (seconds != "0") append(seconds + "s");
  return out;
}

std::string format_positive_duration(uint64_t ns) {
  constexpr uint64_t kSecond = 1'000'000'000ULL;
  constexpr uint64_t kDay = 86400 * kSecond;
  constexpr uint64_t kYear = 365 * kDay;
  const double x = static_cast<double>(ns);
  if (ns < 1000) return fmt::format("{}ns", ns);
  if (ns < 1'000'000) return trimmed_fixed(x / 1e3, 3) + "us";
  if (ns < kSecond) return trimmed_fixed(x / 1e6, 3) + "ms";
  if (ns < 60 * kSecond) return trimmed_fixed(x / 1e9, 3) + "s";
  if (ns < kDay) return format_clock(ns);
  if (ns < kYear) return trimmed_fixed(x / static_cast<double>(kDay), 2) + "d";
  return trimmed_fixed(x / static_cast<double>(kYear), 2) + "y";
}

}  // namespace

core::Duration parse_duration(std::string_view text) {
  std::string_view rest = trim(text, kWhitespace);
  if (rest.empty()) reject(kDurationExpected, text, "empty");
  int64_t total_ns = 0;
  double previous_unit = std::numeric_limits<double>::infinity();
  while (!rest.empty()) {
    const auto number = scan_number(rest);
    if (!number) reject(kDurationExpected, text);
    if (number->value < 0) reject_negative("duration", text);
    const std::string_view unit = unit_token(number->rest);
    if (unit.empty()) reject(kDurationExpected, text, "missing unit");
    const double unit_ns = duration_unit_ns(unit);
    if (unit_ns == 0) {
      reject(kDurationExpected, text,
             fmt::format("unknown unit \"{}\"; use ns, us, ms, s, m or min, h, d, w, y", unit));
    }
    if (unit_ns >= previous_unit) {
      reject(kDurationExpected, text, "in a compound duration put larger units first");
    }
    previous_unit = unit_ns;
    const double segment_ns = std::round(number->value * unit_ns);
    if (segment_ns >= kMaxDurationNs - static_cast<double>(total_ns)) {
      reject(kDurationExpected, text, "longer than 292 years");
    }
    total_ns += static_cast<int64_t>(segment_ns);
    rest = trim(number->rest.substr(unit.size()), kWhitespace);
  }
  return core::Duration::nanos(total_ns);
}

double parse_bandwidth_bps(std::string_view text) { return parse_scaled(text, kBandwidthUnits); }
double parse_flops(std::string_view text) { return parse_scaled(text, kFlopsUnits); }
double parse_bytes(std::string_view text) { return parse_scaled(text, kBytesUnits); }

int64_t parse_count(std::string_view text) {
  const auto number = scan_number(trim(text, kWhitespace));
  if (!number || !number->rest.empty()) reject(kCountExpected, text);
  if (!is_plain_integer(number->text)) return count_from_double(number->value);
  std::string_view digits = number->text[0] == '+' ? number->text.substr(1) : number->text;
  int64_t value = 0;
  const char* end = digits.data() + digits.size();
  auto [ptr, ec] = std::from_chars(digits.data(), end, value);
  if (ec != std::errc() || ptr != end) reject(kCountExpected, text, "too large");
  return value;
}

double parse_fraction(std::string_view text) {
  constexpr std::string_view kExpected = R"(a fraction like 0.25 or "25%")";
  const auto number = scan_number(trim(text, kWhitespace));
  if (!number) reject(kExpected, text);
  if (number->rest.empty()) return number->value;
  if (number->rest == "%") return number->value / 100.0;
  reject(kExpected, text, fmt::format("unknown unit \"{}\"", number->rest));
}

int64_t count_from_double(double value) {
  if (!std::isfinite(value) || value != std::trunc(value)) {
    throw std::invalid_argument(
        fmt::format("expected {}, got {}", kCountExpected, format_number(value)));
  }
  if (value >= kCountLimit || value < -kCountLimit) {
    throw std::invalid_argument(fmt::format("expected {}, got {} (too large)", kCountExpected,
                                            format_number(value)));
  }
  return static_cast<int64_t>(value);
}

double number_from_json(const nlohmann::json& value) {
  if (!value.is_number()) wrong_type("a number", value);
  return value.get<double>();
}

int64_t count_from_json(const nlohmann::json& value) {
  if (value.is_number_unsigned()) {
    const uint64_t u = value.get<uint64_t>();
    if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      throw std::invalid_argument(fmt::format("expected {}, got {} (too large)", kCountExpected, u));
    }
    return static_cast<int64_t>(u);
  }
  if (value.is_number_integer()) return value.get<int64_t>();
  if (value.is_number_float()) return count_from_double(value.get<double>());
  if (value.is_string()) return parse_count(value.get_ref<const std::string&>());
  wrong_type(kCountExpected, value);
}

core::Duration duration_from_json(const nlohmann::json& value) {
  if (value.is_string()) return parse_duration(value.get_ref<const std::string&>());
  if (!value.is_number()) wrong_type(R"(a duration string like "30s")", value);
  const double seconds = value.get<double>();
  if (!(std::abs(seconds) * 1e9 < kMaxDurationNs)) {
    throw std::invalid_argument(fmt::format("expected {}, got {} seconds (longer than 292 years)",
                                            kDurationExpected, format_number(seconds)));
  }
  return core::Duration::from_seconds(seconds);
}

double bandwidth_from_json(const nlohmann::json& value) {
  return number_or_text(value, parse_bandwidth_bps, kBandwidthUnits.expected);
}

double flops_from_json(const nlohmann::json& value) {
  return number_or_text(value, parse_flops, kFlopsUnits.expected);
}

double bytes_from_json(const nlohmann::json& value) {
  return number_or_text(value, parse_bytes, kBytesUnits.expected);
}

double fraction_from_json(const nlohmann::json& value) {
  return number_or_text(value, parse_fraction, R"(a fraction like 0.25 or "25%")");
}

std::string format_duration(core::Duration d) {
  const int64_t ns = d.ns();
  if (ns == 0) return "0s";
  if (ns > 0) return format_positive_duration(static_cast<uint64_t>(ns));
  // -(ns + 1) + 1 avoids overflowing on Duration::min().
  // Built with insert() rather than "-" + ... to dodge GCC 12's spurious -Wrestrict.
  std::string text = format_positive_duration(static_cast<uint64_t>(-(ns + 1)) + 1);
  text.insert(text.begin(), '-');
  return text;
}

std::string format_bandwidth_bps(double bits_per_second) {
  return format_si(bits_per_second, "bps");
}

std::string format_flops(double flops) { return format_si(flops, "FLOPS"); }

// Always binary prefixes, as the limits (--max-memory 8GiB) are written: one screen never
// mixes kB and KiB.
std::string format_bytes(double bytes) {
  return format_prefixed(bytes, "B", 1024.0, {"Ki", "Mi", "Gi", "Ti", "Pi", "Ei"});
}

std::string format_number(double value) { return fmt::format("{}", value); }

}  // namespace goodsim::scenario
