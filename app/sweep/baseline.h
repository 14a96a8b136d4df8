// The baseline file of `goodsim check`: per scenario and policy, the mean,
// standard deviation and number of seeds of each metric it guards. JSON
// (documented in docs/ci.md):
//
//   {
//     "format": "goodsim-baseline/1",
//     "version": "0.1.0",                 // goodsim that recorded it (informational)
//     "seeds": 5,                         // seeds per scenario `check` runs by default
//     "scenarios": [
//       { "name": "demo",                 // the scenario's "name": the key
//         "file": "scenarios/demo.json",  // informational
//         "first_seed": 1,                // seeds were first_seed .. first_seed + n - 1
//         "policies": [
//           { "name": "dp-fast-restart",
//             "goodput": { "mean": 0.8037, "sd": 0.0041, "n": 5,
//                          "values": [0.8011, 0.8090, ...] },
//             "uptime": { "mean": 0.8040, "sd": 0.0041, "n": 5, "tolerance": 0.01 } } ] } ]
//   }
//
// A policy lists any of the metrics of metrics.h. "values" (optional) are the
// per-seed values in seed order (n of them): with them, and the same seeds
// now, check compares seed by seed (paired). "tolerance" (optional) is the
// absolute worsening allowed for that metric, replacing the statistical rule.
// Reading is strict: unknown keys, duplicate names and missing fields are
// errors naming the file and the JSON path.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace goodsim::app::sweep {

struct BaselineMetric {
  size_t metric = 0;  // index into kMetrics
  double mean = 0;
  double sd = 0;  // sample sd; 0 when n == 1
  size_t n = 0;
  std::optional<double> tolerance;
  std::vector<double> values;  // per seed, in seed order; empty or n values
};

struct BaselinePolicy {
  std::string name;
  std::vector<BaselineMetric> metrics;  // in kMetrics order
};

struct BaselineScenario {
  std::string name;
  std::string file;
  std::optional<uint64_t> first_seed;
  std::vector<BaselinePolicy> policies;
};

struct Baseline {
  std::string version;
  size_t seeds = 5;
  std::vector<BaselineScenario> scenarios;

  const BaselineScenario* find(const std::string& scenario) const;
};

const BaselinePolicy* find_policy(const BaselineScenario& s, const std::string& policy);

// Reads and checks a baseline file. Throws ScenarioError.
Baseline read_baseline(const std::string& path);
// The file's text (2-space indented JSON with a final newline).
std::string baseline_text(const Baseline& baseline);

}  // namespace goodsim::app::sweep
