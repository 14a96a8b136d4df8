#include "models/registry.h"

#include "models/failure/exponential_failures.h"
#include "models/policy/data_parallel.h"

namespace goodsim::models {

const char* kind_name(ModelKind k) {
  switch (k) {
    case ModelKind::kFailure: return "failure";
    case ModelKind::kStraggler: return "straggler";
    case ModelKind::kPolicy: return "policy";
  }
  return "?";
}

const char* scenario_key(ModelKind k) {
  switch (k) {
    case ModelKind::kFailure: return "failures";
    case ModelKind::kStraggler: return "stragglers";
    case ModelKind::kPolicy: return "policies";
  }
  return "?";
}

const ModelInfo* Registry::find(ModelKind kind, const std::string& type) const {
  for (const ModelInfo& m : models_) {
    if (m.kind == kind && m.type == type) return &m;
  }
  return nullptr;
}

std::vector<std::string> Registry::types(ModelKind kind) const {
  std::vector<std::string> out;
  for (const ModelInfo& m : models_) {
    if (m.kind == kind) out.push_back(m.type);
  }
  return out;
}

Registry builtin_registry() {
  Registry r;
  r.add_failure<failure::ExponentialFailures, failure::ExponentialFailuresConfig>(
      "exponential_failures", "independent per-chip failures, exponential lifetimes, fixed repair");
  r.add_policy<policy::DataParallel, policy::DataParallelConfig>(
      "data_parallel", "one SPMD job over all slices; any failure stops it for a restart");
  return r;
}

}  // namespace goodsim::models
