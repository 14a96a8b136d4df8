#include "models/straggler/straggler_params.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "models/enum_choice.h"
#include "sim/core/check.h"

namespace goodsim::models::straggler {
namespace {

using core::Distribution;
using scenario::ObjectReader;

double non_negative(ObjectReader& o, std::string_view key, std::string_view help) {
  return o.number(key, help, 0.0);
}

double positive(ObjectReader& o, std::string_view key, std::string_view help) {
  const double v = o.number(key, help, 0.0);
  if (!(v > 0)) o.fail(key, "expected a number > 0");
  return v;
}

// Which one of `keys` the object holds; exactly one is required.
std::string one_of(ObjectReader& o, const std::vector<std::string>& keys) {
  std::string found;
  for (const std::string& k : keys) {
    if (!o.has(k)) continue;
    if (!found.empty()) o.fail(k, fmt::format("conflicts with \"{}\"; give only one of them", found));
    found = k;
  }
  if (found.empty()) o.fail("", fmt::format("missing one of \"{}\"", fmt::join(keys, "\", \"")));
  return found;
}

Distribution read_lognormal(ObjectReader& o) {
  const std::string where = one_of(o, {"mean", "median"});
  const std::string spread = one_of(o, {"sigma", "cv", "stddev"});
  const double m = positive(o, where, where);
  if (spread == "stddev") {
    if (where != "mean") o.fail("stddev", "goes with \"mean\", not \"median\"");
    return Distribution::lognormal_mean_stddev(m, non_negative(o, "stddev", "standard deviation"));
  }
  const double sigma = spread == "sigma" ? non_negative(o.unit("1"), "sigma", "log-space sd")
                                         : std::sqrt(std::log1p(std::pow(non_negative(o.unit("1"), "cv", "sd / mean"), 2)));
  return where == "mean" ? Distribution::lognormal_mean_sigma(m, sigma)
                         : Distribution::lognormal(std::log(m), sigma);
}

Distribution read_weibull(ObjectReader& o) {
  const double shape = positive(o.unit("1"), "shape", "Weibull shape");
  const std::string size = one_of(o, {"scale", "mean"});
  const double v = positive(o, size, size);
  return Distribution::weibull(shape, size == "scale" ? v : v / std::tgamma(1 + 1 / shape));
}

Distribution read_dist_object(ObjectReader o) {
  const std::string kind = o.choice(
      "dist", {"fixed", "uniform", "exponential", "lognormal", "weibull", "normal"},
      "distribution kind");
  try {
    if (kind == "fixed") return Distribution::fixed(non_negative(o, "value", "the value"));
    if (kind == "uniform") {
      const double lo = non_negative(o, "min", "lower bound");
      const double hi = non_negative(o, "max", "upper bound");
      if (hi < lo) o.fail("max", "must be >= min");
      return Distribution::uniform(lo, hi);
    }
    if (kind == "exponential") return Distribution::exponential(positive(o, "mean", "mean"));
    if (kind == "lognormal") return read_lognormal(o);
    if (kind == "weibull") return read_weibull(o);
    const double mean = positive(o, "mean", "mean before truncation");
    return Distribution::normal(mean, non_negative(o, "stddev", "standard deviation"));
  } catch (const std::invalid_argument& e) {
    o.fail("", e.what());
  }
}

}  // namespace

std::string FactorLaw::describe() const {
  if (excess.kind() == Distribution::Kind::kFixed) return fmt::format("{}", mean());
  return "1 + " + excess.describe();
}

FactorLaw read_factor_law(ObjectReader& r, std::optional<FactorLaw> def, std::string_view what) {
  const std::string help_factor = "step-time multiplier of " + std::string(what) + ", >= 1";
  const std::string help_slowdown =
      "instead of factor: the excess factor - 1 of " + std::string(what) +
      ", a number or a distribution {\"dist\": ...}";
  if (r.describing()) {
    r.unit("x").optional_number("factor", def ? help_factor + "; default " + def->describe() : help_factor, 1.0);
    r.raw("slowdown", help_slowdown);
    return def.value_or(FactorLaw::fixed(1.0));
  }
  const bool has_factor = r.has("factor"), has_slowdown = r.has("slowdown");
  if (has_factor && has_slowdown) r.fail("slowdown", "give either \"factor\" or \"slowdown\", not both");
  if (has_factor) {
    if (r.raw("factor").is_object()) {
      r.fail("factor", "a distribution of factors is given as \"slowdown\", the excess over 1 "
                       "(factor = 1 + slowdown)");
    }
    return FactorLaw::fixed(r.unit("x").number("factor", help_factor, 1.0));
  }
  if (has_slowdown) {
    if (r.raw("slowdown").is_object()) return {read_dist_object(r.object("slowdown"))};
    return {Distribution::fixed(r.unit("x").number("slowdown", help_slowdown, 0.0))};
  }
  if (!def) r.fail("", "missing \"factor\" (a number >= 1) or \"slowdown\" (factor - 1)");
  return *def;
}

cluster::Domain read_unit_domain(ObjectReader& r, std::string_view help) {
  return read_enum(
      r, "domain",
      domain_options({cluster::Domain::kChip, cluster::Domain::kHost, cluster::Domain::kSlice}),
      cluster::Domain::kChip, help);
}

LearnerShare learner_share(const cluster::Layout& layout, uint32_t learners, uint32_t k) {
  const uint32_t members = layout.slices() - layout.spare_slices();
  GOODSIM_CHECK(k < learners && learners <= members);
  const uint32_t size = members / learners, larger = members % learners;
  const cluster::SliceId first = k * size + std::min(k, larger);
  return {first, first + size + (k < larger ? 1 : 0)};
}

}  // namespace goodsim::models::straggler
