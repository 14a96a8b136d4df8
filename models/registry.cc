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

namespace {

struct KindNames {
  const char* kind;  // kind_name()
  const char* key;   // scenario_key()
};
// Indexed by ModelKind.
constexpr KindNames kKindNames[] = {
    {"failure", "failures"}, {"straggler", "stragglers"}, {"policy", "policies"}};

}  // namespace

const char* kind_name(ModelKind k) { return kKindNames[static_cast<size_t>(k)].kind; }

const char* scenario_key(ModelKind k) { return kKindNames[static_cast<size_t>(k)].key; }

ModelInfo& Registry::add(ModelKind kind, std::string type, std::string help,
                         ModelExamples examples) {
  models_.push_back({kind, std::move(type), std::move(help), std::move(examples), {}, {}, {}});
  return models_.back();
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
      "exponential_failures", "independent per-chip failures, exponential lifetimes; lemons, causes",
      {R"({"mtbf": "30d", "lemon_fraction": 0.1, "lemon_multiplier": 3, "causes": "llama3"})",
       R"({"mtbf": "250y"})"});
  r.add_failure<failure::WeibullFailures, failure::WeibullFailuresConfig>(
      "weibull_failures", "per-chip Weibull lifetimes, age reset on repair; lemons, causes",
      {R"({"shape": 0.7, "mtbf": "30d", "lemon_fraction": 0.05})",
       R"({"shape": 5, "scale": "250y", "initial_age": "new"})"});
  r.add_failure<failure::DomainFailures, failure::DomainFailuresConfig>(
      "domain_failures", "whole hosts, slices or sites fail together (power, network, cooling)",
      {R"({"domain": "host", "mtbf": "20d"})", R"({"domain": "site", "mtbf": "250y"})"});
  r.add_failure<failure::PlannedMaintenance, failure::PlannedMaintenanceConfig>(
      "planned_maintenance", "scheduled windows taking units down, rolling or random",
      {R"({"domain": "slice", "interval": "1d", "jitter": "2h", "duration": "2h"})",
       R"({"interval": "1d", "end": "12h", "duration": "2h"})"});
  r.add_failure<failure::TraceReplay, failure::TraceReplayConfig>(
      "trace_replay", "replays the outages of a CSV failure trace exactly (docs/trace-format.md)",
      {R"({"file": "traces/small.csv"})", R"({"file": "traces/none.csv"})"});
  r.add_policy<policy::ElasticDataParallel, policy::ElasticDataParallelConfig>(
      "elastic_data_parallel", "one DP job that shrinks on failures and grows back on repair",
      {R"({"checkpoint_interval": "1h"})"});
  r.add_policy<policy::DataParallel, policy::DataParallelConfig>(
      "data_parallel", "one SPMD job over all slices; any failure stops it for a restart",
      {R"({"restart_time": "5m", "checkpoint": {"interval": "1h"}})"});
  r.add_policy<policy::Diloco, policy::DilocoConfig>(
      "diloco", "M elastic learners meeting at a barrier every H steps (optionally streaming)",
      {R"({"learners": 2, "inner_steps": 100})"});
  r.add_policy<policy::DecoupledDiloco, policy::DecoupledDilocoConfig>(
      "decoupled_diloco", "M asynchronous learners, a syncer merging fragments at quorum K",
      {R"({"learners": 4, "quorum": 2, "inner_steps": 24, "fragments": 4})"});
  r.add_straggler<straggler::TransientStragglers, straggler::TransientStragglersConfig>(
      "transient_stragglers", "per-chip slowdown episodes (rate, duration and factor laws)",
      {R"({"mtbe": "1d", "duration": "10m", "factor": 1.5})"});
  r.add_straggler<straggler::PersistentStragglers, straggler::PersistentStragglersConfig>(
      "persistent_stragglers", "a fraction of chips slow for the whole run",
      {R"({"fraction": 0.1, "factor": 1.3})"});
  r.add_straggler<straggler::JobSlowdown, straggler::JobSlowdownConfig>(
      "job_slowdown", "one steady whole-job slowdown drawn per run (ByteDance fit)", {"{}"});
  r.add_straggler<straggler::HardwareGenerations, straggler::HardwareGenerationsConfig>(
      "hardware_generations", "slower chip generations by site or slice range",
      {R"({"generations": [{"name": "older", "first_slice": 2, "slices": 2, "factor": 1.2}]})"});
  r.add_straggler<straggler::Diurnal, straggler::DiurnalConfig>(
      "diurnal", "daily sinusoidal swing of the whole fleet's step time",
      {R"({"amplitude": 0.02})"});
  return r;
}

}  // namespace goodsim::models
