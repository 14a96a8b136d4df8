#include "sim/scenario/distribution_reader.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "sim/scenario/error.h"
#include "sim/scenario/units.h"

namespace goodsim::scenario {
namespace {

using core::Distribution;
using nlohmann::json;

constexpr std::string_view kHelpSuffix =
    " (a duration, or a distribution {\"dist\": ...}; see docs/scenario.md)";

double positive_seconds(ObjectReader& o, std::string_view key, std::string_view help) {
  const core::Duration d = o.duration(key, help);
  if (d <= core::Duration::zero()) {
    o.fail(key, "expected a duration > 0, got " + format_duration(d));
  }
  return d.seconds_f();
}

double positive_number(ObjectReader& o, std::string_view key, std::string_view help) {
  const double v = o.number(key, help);
  if (!(v > 0)) o.fail(key, "expected a number > 0, got " + format_number(v));
  return v;
}

// Which one of `keys` the object holds; exactly one is required.
std::string one_of(ObjectReader& o, const std::vector<std::string>& keys) {
  std::string found;
  for (const std::string& k : keys) {
    if (!o.has(k)) continue;
    if (!found.empty()) {
      o.fail(k, fmt::format("conflicts with \"{}\"; give only one of them", found));
    }
    found = k;
  }
  if (found.empty()) {
    std::string list;
    for (const std::string& k : keys) list += (list.empty() ? "\"" : ", \"") + k + "\"";
    o.fail("", "missing one of " + list);
  }
  return found;
}

Distribution read_fixed(ObjectReader& o) {
  return Distribution::fixed(o.duration("value", "the fixed duration").seconds_f());
}

Distribution read_exponential(ObjectReader& o) {
  return Distribution::exponential(positive_seconds(o, "mean", "mean"));
}

// Log-space sigma from "sigma" or "cv" (sigma^2 = log(1 + cv^2)).
double lognormal_sigma(ObjectReader& o, const std::string& spread) {
  if (spread == "sigma") return o.unit("1").number("sigma", "log-space sd", 0);
  const double cv = o.unit("1").number("cv", "sd / mean", 0);
  return std::sqrt(std::log1p(cv * cv));
}

Distribution read_lognormal(ObjectReader& o) {
  const std::string where = one_of(o, {"mean", "median"});
  const std::string spread = one_of(o, {"sigma", "cv", "stddev"});
  if (where == "mean") {
    const double mean = positive_seconds(o, "mean", "mean");
    if (spread == "stddev") {
      return Distribution::lognormal_mean_stddev(mean, o.duration("stddev", "sd").seconds_f());
    }
    return Distribution::lognormal_mean_sigma(mean, lognormal_sigma(o, spread));
  }
  const double median = positive_seconds(o, "median", "median");
  if (spread == "stddev") {
    o.fail("stddev", "needs \"mean\"; with \"median\" give \"sigma\" or \"cv\"");
  }
  return Distribution::lognormal(std::log(median), lognormal_sigma(o, spread));
}

Distribution read_weibull(ObjectReader& o) {
  const double shape = positive_number(o.unit("1"), "shape", "shape k (< 1: decreasing hazard)");
  if (one_of(o, {"scale", "mean"}) == "scale") {
    return Distribution::weibull(shape, positive_seconds(o, "scale", "scale"));
  }
  const double mean = positive_seconds(o, "mean", "mean = scale * Gamma(1 + 1/shape)");
  return Distribution::weibull(shape, mean / std::tgamma(1.0 + 1.0 / shape));
}

Distribution read_exp_weibull(ObjectReader& o) {
  const double shape = positive_number(o.unit("1"), "shape", "Weibull shape");
  const double scale = positive_seconds(o, "scale", "Weibull scale");
  return Distribution::exp_weibull(shape, scale, positive_number(o.unit("1"), "alpha", "exponent alpha"));
}

Distribution read_uniform(ObjectReader& o) {
  const core::Duration lo = o.duration("min", "lower end");
  const core::Duration hi = o.duration("max", "upper end");
  if (hi < lo) o.fail("max", fmt::format("must be >= min ({})", format_duration(lo)));
  return Distribution::uniform(lo.seconds_f(), hi.seconds_f());
}

Distribution read_normal(ObjectReader& o) {
  const double mean = positive_seconds(o, "mean", "mean before truncation");
  return Distribution::normal(mean, o.duration("stddev", "sd").seconds_f());
}

struct Family {
  std::string_view name;
  std::vector<std::string> keys;  // besides "dist"
  Distribution (*read)(ObjectReader&);
};

const std::vector<Family>& families() {
  static const std::vector<Family> kFamilies = {
      {"fixed", {"value"}, read_fixed},
      {"exponential", {"mean"}, read_exponential},
      {"lognormal", {"mean", "median", "sigma", "cv", "stddev"}, read_lognormal},
      {"weibull", {"shape", "scale", "mean"}, read_weibull},
      {"exp_weibull", {"shape", "scale", "alpha"}, read_exp_weibull},
      {"uniform", {"min", "max"}, read_uniform},
      {"normal", {"mean", "stddev"}, read_normal},
  };
  return kFamilies;
}

Distribution read_object(ObjectReader& o, const json& obj) {
  const std::string dist = o.choice("dist", distribution_names(), "distribution family");
  for (const Family& f : families()) {
    if (f.name != dist) continue;
    std::vector<std::string> allowed = f.keys;
    allowed.insert(allowed.begin(), "dist");
    for (auto it = obj.begin(); it != obj.end(); ++it) {
      if (std::find(allowed.begin(), allowed.end(), it.key()) != allowed.end()) continue;
      o.fail(it.key(), fmt::format("not a parameter of a \"{}\" distribution; {}", dist,
                                   key_hint(it.key(), allowed)));
    }
    try {
      return f.read(o);
    } catch (const std::invalid_argument& e) {
      o.fail("", e.what());
    }
  }
  o.fail("dist", "unknown distribution \"" + dist + "\"");  // unreachable: choice() checked
}

std::optional<Distribution> read(ObjectReader& r, std::string_view key,
                                 std::optional<core::Duration> def, bool required,
                                 std::string_view help) {
  const std::string full_help = std::string(help) + std::string(kHelpSuffix);
  if (r.describing()) {
    if (def) return Distribution::fixed(r.duration(key, *def, full_help).seconds_f());
    if (required) return Distribution::fixed(r.duration(key, full_help).seconds_f());
    r.optional_duration(key, full_help);
    return std::nullopt;
  }
  const json& v = r.raw(key, full_help);
  if (v.is_null()) {
    if (def) return Distribution::fixed(def->seconds_f());
    // Missing and required: the reader reports it (and, collecting errors, hands back a
    // stand-in), so the caller always gets a distribution.
    if (required) return Distribution::fixed(r.duration(key, full_help).seconds_f());
    return std::nullopt;
  }
  if (v.is_object()) {
    ObjectReader o = r.object(key, full_help);
    return read_object(o, v);
  }
  if (v.is_string() || v.is_number()) {
    return Distribution::fixed(r.duration(key, full_help).seconds_f());
  }
  r.fail(key, "expected a duration like \"30m\" or a distribution object {\"dist\": ...}, got " +
                  describe_value(v));
}

}  // namespace

const std::vector<std::string>& distribution_names() {
  static const std::vector<std::string> kNames = [] {
    std::vector<std::string> names;
    for (const Family& f : families()) names.emplace_back(f.name);
    return names;
  }();
  return kNames;
}

core::Distribution duration_distribution(ObjectReader& r, std::string_view key,
                                         std::string_view help) {
  return *read(r, key, std::nullopt, true, help);
}

core::Distribution duration_distribution(ObjectReader& r, std::string_view key,
                                         core::Duration def, std::string_view help) {
  return *read(r, key, def, false, help);
}

std::optional<core::Distribution> optional_duration_distribution(ObjectReader& r,
                                                                 std::string_view key,
                                                                 std::string_view help) {
  return read(r, key, std::nullopt, false, help);
}

}  // namespace goodsim::scenario
