// Reading a real-valued duration distribution (a repair time, a maintenance
// window, ...) from one key of a scenario object.
//
// Accepted forms (all results are core::Distribution in SECONDS):
//   "30m", 1800                                  fixed (a plain duration)
//   {"dist": "fixed", "value": "30m"}
//   {"dist": "exponential", "mean": "2h"}
//   {"dist": "lognormal", "mean": "2h", "sigma": 1}     also "median" instead of
//                                                        "mean"; "cv" or (with
//                                                        "mean") "stddev" instead
//                                                        of "sigma"
//   {"dist": "weibull", "shape": 0.7, "scale": "1d"}    or "mean" instead of "scale"
//   {"dist": "exp_weibull", "shape": 2, "scale": "1h", "alpha": 0.5}
//   {"dist": "uniform", "min": "10m", "max": "1h"}
//   {"dist": "normal", "mean": "1h", "stddev": "15m"}   truncated at 0 (resampled)
// Times (value, mean, median, scale, min, max, stddev) are durations; shapes
// (sigma, cv, shape, alpha) are plain numbers.
//
// Strict: an unknown "dist" is an error with a did-you-mean hint; a key that is
// not a parameter of the chosen dist is an error listing the valid ones; bad
// values (shape <= 0, min > max, ...) name their path. Every error is a
// ScenarioError thrown through the reader.
//
// Describe mode: the key is documented as one parameter of kind "duration"
// whose help says a distribution object is accepted too; the placeholder
// result is fixed(1) (or the default).
#pragma once

#include <optional>
#include <string_view>

#include "sim/core/distributions.h"
#include "sim/core/time.h"
#include "sim/scenario/reader.h"

namespace goodsim::scenario {

// Required key.
core::Distribution duration_distribution(ObjectReader& r, std::string_view key,
                                         std::string_view help);
// Optional key; absent (or null) means fixed(def).
core::Distribution duration_distribution(ObjectReader& r, std::string_view key,
                                         core::Duration def, std::string_view help);
// Optional key without a default.
std::optional<core::Distribution> optional_duration_distribution(ObjectReader& r,
                                                                 std::string_view key,
                                                                 std::string_view help);

// The dist names accepted in {"dist": ...}, in documentation order.
const std::vector<std::string>& distribution_names();

}  // namespace goodsim::scenario
