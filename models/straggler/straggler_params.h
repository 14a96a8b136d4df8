// Parameters shared by the straggler models: slowdown-factor laws and the
// unit a model acts on. (Duration laws use sim/scenario/distribution_reader.h.)
//
// A slowdown distribution is a number or an object {"dist": KIND, ...} of
// plain numbers, with the same kinds and parameter names as the duration
// distributions of distribution_reader.h:
//   {"dist": "fixed", "value": V}
//   {"dist": "uniform", "min": A, "max": B}
//   {"dist": "exponential", "mean": M}
//   {"dist": "lognormal", "median" | "mean": M, "sigma" | "cv" | "stddev": S}
//   {"dist": "weibull", "shape": K, "scale" | "mean": L}
//   {"dist": "normal", "mean": M, "stddev": S}   (truncated at 0 by resampling)
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "sim/cluster/layout.h"
#include "sim/core/distributions.h"
#include "sim/core/rng.h"
#include "sim/scenario/reader.h"

namespace goodsim::models::straggler {

// The law of a slowdown factor: factor = 1 + excess, excess ~ a non-negative
// distribution, so every factor is >= 1. E.g. excess fixed(0.05) is a 5%
// slower step.
struct FactorLaw {
  core::Distribution excess;

  static FactorLaw fixed(double factor) { return {core::Distribution::fixed(factor - 1.0)}; }
  double sample(core::Rng& rng) const { return 1.0 + excess.sample(rng); }
  double mean() const { return 1.0 + excess.mean(); }
  // "1.05" for a fixed factor, else "1 + lognormal(...)".
  std::string describe() const;
};

// Reads a factor law from `r`, which takes exactly one of
//   "factor":   a number >= 1, the same for every draw;
//   "slowdown": the excess factor - 1: a number >= 0 or a distribution object,
//               e.g. {"dist": "lognormal", "median": 0.084, "sigma": 0.91}.
// When neither is given: `def`, or a ScenarioError if there is no default.
FactorLaw read_factor_law(scenario::ObjectReader& r, std::optional<FactorLaw> def,
                          std::string_view what);

// Reads "domain": the unit a model slows ("chip", "host" or "slice").
cluster::Domain read_unit_domain(scenario::ObjectReader& r, std::string_view help);

// Slices [first, end) of learner k of `learners` over the member slices
// [0, slices - spare_slices): near-equal contiguous shares, the first
// (members % learners) one slice larger. This is where decoupled_diloco and
// diloco (placement "contiguous") put their learners, so a straggler model
// can slow "learner k" from the layout alone, without reading a policy.
// REQUIRES: k < learners <= members.
struct LearnerShare {
  cluster::SliceId first = 0;
  cluster::SliceId end = 0;
};
LearnerShare learner_share(const cluster::Layout& layout, uint32_t learners, uint32_t k);

}  // namespace goodsim::models::straggler
