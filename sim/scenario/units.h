// Quantities with units, as written in scenarios: durations, bandwidths, FLOP/s, byte sizes,
// counts and fractions; plus the matching human-readable formatting.
//
// Parsers take the text of a JSON string (or a whole JSON value, for the *_from_json
// variants) and return the value in a fixed base unit:
//   duration  -> core::Duration (ns)   "250ms" "30s" "1.5m" "90min" "36h" "7d" "2w" "1y"
//                                       (y = 365 days), also "ns" "us"/"µs"; compound
//                                       "1h30m" / "1h 30m" (largest unit first)
//   bandwidth -> bits per second        "5Gbps" "400Mbps" "100Gb/s" "10Gbit/s" "1.6Tbps"
//                                       "25GB/s" "25GBps" (bytes, x8); "Gibps" binary
//   FLOP/s    -> FLOP per second        "459TFLOPS" "1.2PFLOPS" "312 TFLOP/s" "2e14"
//   bytes     -> bytes                  "2.3TB" "512MB" "16GiB" "4096" (SI x1000, "i" x1024)
//   count     -> int64                  "1.2e6" "128"; must be a whole number
//   fraction  -> double                 "25%" or "0.25" (range is the caller's business)
// A number without a unit means the base unit (seconds for durations). SI prefixes are
// k/K, M, G, T, P, E (case matters for all but k, so "m" is never mega).
//
// Errors: every parser throws std::invalid_argument whose message says what was expected
// and what was found, e.g. `expected a duration like "30s", "36h" or "1y", got "3 parsecs"
// (unknown unit "parsecs")`. Callers (ObjectReader) add the file and JSON path. Rejected:
// empty text, unknown or missing units, NaN/inf/overflow, and negative durations,
// bandwidths, FLOP/s and byte sizes. Negative counts and fractions parse (the caller's range
// check reports them with the allowed range).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "sim/core/time.h"

namespace goodsim::scenario {

core::Duration parse_duration(std::string_view text);
double parse_bandwidth_bps(std::string_view text);
double parse_flops(std::string_view text);
double parse_bytes(std::string_view text);
int64_t parse_count(std::string_view text);
double parse_fraction(std::string_view text);

// A double that must be a whole number representable as int64 (a count written 1.2e6).
int64_t count_from_double(double value);

// The same quantities from a JSON value: a number (in the base unit) or a string as above.
// Any other JSON type is an error naming what was expected, e.g. `expected a duration
// string like "30s", got true`. Bare JSON numbers may be negative (range checks are the
// caller's); they must be finite and, for durations, within the +/-292-year range.
double number_from_json(const nlohmann::json& value);
int64_t count_from_json(const nlohmann::json& value);
core::Duration duration_from_json(const nlohmann::json& value);
double bandwidth_from_json(const nlohmann::json& value);
double flops_from_json(const nlohmann::json& value);
double bytes_from_json(const nlohmann::json& value);
double fraction_from_json(const nlohmann::json& value);

// Human-readable text; the output parses back with the matching parser (up to rounding).
//   format_duration: "0s", "250ms", "1.5s", "1h 30m", "5m 30s", "3.2d", "1y" (negative: "-5s")
//   format_bandwidth_bps: "5Gbps", "400Mbps", "1.6Tbps"
//   format_flops: "459TFLOPS"
//   format_bytes: "16GiB", "2.092TiB", "512B" (always binary prefixes: KiB, MiB, GiB, ...)
//   format_number: shortest round-trip text of a double ("0.25", "1e+20")
std::string format_duration(core::Duration d);
std::string format_bandwidth_bps(double bits_per_second);
std::string format_flops(double flops);
std::string format_bytes(double bytes);
std::string format_number(double value);

}  // namespace goodsim::scenario
