// The scenario: one JSON document describing a cluster, a job, what goes wrong
// and which policies to compare (docs/scenario.md; docs/architecture.md).
//
// This layer validates the parts it owns (top level, cluster, job, outputs)
// into plain structs, and keeps each model entry (failures, policies, ...) as
// its raw JSON plus its path; the models layer validates those against the
// registry. Parsing is strict: unknown keys, wrong types and out-of-range
// values raise ScenarioError naming the file and the JSON path.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/cluster/layout.h"
#include "sim/cluster/network.h"
#include "sim/core/time.h"
#include "sim/scenario/cost_spec.h"
#include "sim/scenario/error.h"
#include "sim/scenario/reader.h"

namespace goodsim::scenario {

inline constexpr uint64_t kMaxChips = 1'000'000'000;
inline constexpr int64_t kMaxHorizonDays = 3650;  // ten years
inline constexpr uint64_t kMaxSeed = 9'223'372'036'854'775'807;  // 2^63 - 1: seeds are counts

// How the seed travels, the one way every entry point follows: a scenario's
// "seed" is its first seed (`--seed N` on the command line is `--set seed=N`,
// applied to the document before it is read); a run is given its seed
// explicitly (models::run_policy / run_scenario), and replication k of a
// scenario (run --seeds, sweep, check, calibrate, the Python sweep) runs with
// replication_seed(first, k). So replication 0 is the plain run, and run k of
// every command faces the same failure history.
constexpr uint64_t replication_seed(uint64_t first, uint64_t k) { return first + k; }
// Throws ScenarioError(option, "", ...) unless replications 0 .. count - 1 of
// `first` are all seeds a run accepts (at most kMaxSeed). REQUIRES: count >= 1.
void check_replication_seeds(uint64_t first, uint64_t count, const std::string& option);

struct SiteSpec {
  std::string name;
  uint32_t slices = 0;  // 0 in the file: an even share of the cluster
};

struct LinkSpec {
  std::string from;
  std::string to;
  double bandwidth_bps = 0;
  core::Duration latency;
};

struct ClusterSpec {
  uint64_t chips = 0;
  uint32_t chips_per_host = 4;
  uint32_t hosts_per_slice = 64;
  std::vector<SiteSpec> sites;  // resolved: every site has its slice count
  std::vector<LinkSpec> links;
  uint32_t spare_slices = 0;    // the last slices: a pool that replaces failed ones
};

struct JobSpec {
  double params = 0;           // model parameters
  double tokens_per_step = 0;  // global batch in tokens
  core::Duration step_time;    // given, or derived from FLOPs for the non-spare chips
  std::optional<double> target_tokens{};  // time_to_target is measured against it
  std::optional<double> target_loss{};    // or against this (needs a loss model)
  double gradient_bytes = 0;   // bytes of one all-reduce of gradients / parameters
  double intra_site_bps = 0;   // per-slice bandwidth for all-reduces inside a site
  double comm_overlap = 1;     // share of the intra-site all-reduce hidden by compute
  // Layer-level step model (opt-in): empty, or one parameter count per layer
  // (input to output). See models/policy/layer_step_model.h.
  std::vector<double> layer_params{};
};

struct OutputSpec {
  core::Duration sample_interval;  // resolved: never zero
  bool events = false;             // write events.jsonl
};

// One entry of a model list ("failures", "policies"): validated later by the
// models layer.
struct ModelEntry {
  std::string path;    // e.g. "policies.1"
  nlohmann::json json; // the entry object, including "type"
};

struct Scenario {
  std::shared_ptr<const std::string> file;
  std::string name;
  std::string description;
  uint64_t seed = 1;
  core::Duration horizon;
  ClusterSpec cluster;
  JobSpec job;
  std::vector<ModelEntry> failures;
  std::vector<ModelEntry> stragglers;
  std::vector<ModelEntry> policies;
  std::vector<ModelEntry> chaos;  // scripted timeline entries, validated by the models layer
  std::optional<ModelEntry> loss;  // the surrogate loss model, validated by the models layer
  std::optional<CostSpec> cost;    // prices (cost_spec.h); absent: no cost figures
  OutputSpec outputs;
  // Defaults applied while reading this scenario; the models layer's readers append theirs.
  std::shared_ptr<DefaultLog> defaults = std::make_shared<DefaultLog>();
};

// Validates `doc` (after --set overrides) into a Scenario. `file` names the
// source in messages. Throws ScenarioError.
Scenario parse_scenario(const nlohmann::json& doc, const std::string& file);
// The same, adding every error found (up to kMaxErrors) to `errors` instead of
// throwing; when any were found the result is incomplete and must not be used.
Scenario parse_scenario(const nlohmann::json& doc, const std::string& file, ErrorList& errors);

// The top-level keys of a scenario and those of cluster, job and outputs, as
// the reader documents them (describe mode); models document their own.
std::vector<ParamDoc> describe_scenario();

// `doc` with each default of `log` written at its key path (list elements by index), so
// that reading the result applies no default the original reading applied. REQUIRES: `log`
// comes from reading `doc`.
nlohmann::json with_defaults(const nlohmann::json& doc, const DefaultLog& log);

// The cluster shape and WAN graph a scenario describes. REQUIRES: a Scenario
// returned by parse_scenario (already validated).
cluster::Layout make_layout(const ClusterSpec& spec);
cluster::Network make_network(const ClusterSpec& spec);

}  // namespace goodsim::scenario
