// Root causes of the outages an injector begins.
//
// Scenario syntax, under an injector's "causes" key:
//   absent                          every outage gets the injector's default cause
//                                   ("unspecified"; "planned" for planned_maintenance)
//   {"gpu": 0.64, "software": 0.13} weights (numbers >= 0 or "64%"), normalised to
//                                   probabilities; at least one must be > 0
//   "llama3"                        a preset (preset_names(); see docs/model-guide.md)
// Cause names are 1-64 characters of letters, digits, '_', '-' and '.'.
// A JSON object has no order, so an object's causes are kept in name order; a
// preset keeps its own order (most frequent first).
//
// Each failure draws its cause from the injector's own stream with a
// core::Categorical (alias method: one below() and one uniform01() per draw).
// A mix of exactly one cause draws nothing, so adding no "causes" leaves an
// injector's random sequence unchanged.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/cluster/cluster_state.h"
#include "sim/core/distributions.h"
#include "sim/core/rng.h"
#include "sim/scenario/reader.h"

namespace goodsim::models::failure {

// CauseMix: cause names and their probabilities; a plain copyable value held
// by an injector's config. Invariant: size() >= 1, probabilities sum to 1.
class CauseMix {
 public:
  // One cause with probability 1. REQUIRES: a valid cause name.
  static CauseMix single(std::string name);
  // Reads `key` of `r` as above. Throws ScenarioError (path "<...>.causes" or
  // "<...>.causes.<name>") on a bad preset, name or weight.
  static CauseMix from_json(scenario::ObjectReader& r, std::string_view key,
                            std::string_view default_cause);
  // The preset called `name`, or nullopt.
  static std::optional<CauseMix> preset(std::string_view name);
  static std::vector<std::string> preset_names();

  size_t size() const { return names_.size(); }
  const std::string& name(size_t i) const { return names_[i]; }
  double probability(size_t i) const { return categorical_.probability(i); }
  const core::Categorical& categorical() const { return categorical_; }

 private:
  CauseMix(std::vector<std::string> names, const std::vector<double>& weights);

  std::vector<std::string> names_;
  core::Categorical categorical_;
};

// CauseSampler: a CauseMix bound to one run's ClusterState. Construct it in the
// injector's start(): it interns the names (ids follow first use, so in
// scenario order). Default-constructed it always yields kUnspecifiedCause.
class CauseSampler {
 public:
  CauseSampler() = default;
  CauseSampler(const CauseMix& mix, cluster::ClusterState& state);

  // Draws from `rng` only when the mix has more than one cause.
  cluster::CauseId draw(core::Rng& rng) const {
    if (ids_.size() <= 1) return ids_.empty() ? cluster::kUnspecifiedCause : ids_[0];
    return ids_[mix_->categorical().sample(rng)];
  }

 private:
  std::vector<cluster::CauseId> ids_;
  std::optional<CauseMix> mix_;
};

}  // namespace goodsim::models::failure
