#include "models/registry.h"

#include "models/failure/domain_failures.h"
#include "models/failure/exponential_failures.h"
#include "models/failure/planned_maintenance.h"
#include "models/failure/trace_replay.h"
#include "models/failure/weibull_failures.h"
#include "models/policy/data_parallel.h"
#include "models/policy/decoupled_diloco.h"
#include "models/policy/diloco.h"
#include "models/policy/elastic_data_parallel.h"
#include "models/straggler/diurnal.h"
#include "models/straggler/hardware_generations.h"
#include "models/straggler/job_slowdown.h"
#include "models/straggler/persistent_stragglers.h"
#include "models/straggler/transient_stragglers.h"

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
      "exponential_failures", "independent per-chip failures, exponential lifetimes; lemons, causes");
  r.add_failure<failure::WeibullFailures, failure::WeibullFailuresConfig>(
      "weibull_failures", "per-chip Weibull lifetimes, age reset on repair; lemons, causes");
  r.add_failure<failure::DomainFailures, failure::DomainFailuresConfig>(
      "domain_failures", "whole hosts, slices or sites fail together (power, network, cooling)");
  r.add_failure<failure::PlannedMaintenance, failure::PlannedMaintenanceConfig>(
      "planned_maintenance", "scheduled windows taking units down, rolling or random");
  r.add_failure<failure::TraceReplay, failure::TraceReplayConfig>(
      "trace_replay", "replays the outages of a CSV failure trace exactly (docs/trace-format.md)");
  r.add_policy<policy::ElasticDataParallel, policy::ElasticDataParallelConfig>(
      "elastic_data_parallel", "one DP job that shrinks on failures and grows back on repair");
  r.add_policy<policy::DataParallel, policy::DataParallelConfig>(
      "data_parallel", "one SPMD job over all slices; any failure stops it for a restart");
  r.add_policy<policy::Diloco, policy::DilocoConfig>(
      "diloco", "M elastic learners meeting at a barrier every H steps (optionally streaming)");
  r.add_policy<policy::DecoupledDiloco, policy::DecoupledDilocoConfig>(
      "decoupled_diloco", "M asynchronous learners, a syncer merging fragments at quorum K");
  r.add_straggler<straggler::TransientStragglers, straggler::TransientStragglersConfig>(
      "transient_stragglers", "per-chip slowdown episodes (rate, duration and factor laws)");
  r.add_straggler<straggler::PersistentStragglers, straggler::PersistentStragglersConfig>(
      "persistent_stragglers", "a fraction of chips slow for the whole run");
  r.add_straggler<straggler::JobSlowdown, straggler::JobSlowdownConfig>(
      "job_slowdown", "one steady whole-job slowdown drawn per run (ByteDance fit)");
  r.add_straggler<straggler::HardwareGenerations, straggler::HardwareGenerationsConfig>(
      "hardware_generations", "slower chip generations by site or slice range");
  r.add_straggler<straggler::Diurnal, straggler::DiurnalConfig>(
      "diurnal", "daily sinusoidal swing of the whole fleet's step time");
  return r;
}

}  // namespace goodsim::models
