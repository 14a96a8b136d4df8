// Random scenario documents for property tests: every registered model type appears with
// random parameters, mostly valid, sometimes out of range (those must be refused with a
// ScenarioError, never abort). Small clusters and horizons keep each run to milliseconds.
// Some traces and chaos timelines overlap one chip's outages more than 255 deep, and some
// traces give every outage its own cause (thousands of distinct causes).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/core/rng.h"

namespace goodsim::testing {

class RandomScenario {
 public:
  // `dir` receives the trace files that trace_replay entries name.
  RandomScenario(uint64_t seed, std::filesystem::path dir);

  // The index-th document of this generator (same seed and index: same document).
  nlohmann::json make(uint64_t index);

 private:
  struct Shape;
  nlohmann::json cluster(Shape& shape);
  nlohmann::json failure(const Shape& shape, uint64_t index);
  nlohmann::json straggler(const Shape& shape);
  nlohmann::json policy(const Shape& shape, size_t i);
  nlohmann::json chaos(const Shape& shape);
  // A timeline of 256+ overlapping outages of one chip, each with its own cause.
  nlohmann::json deep_chaos(const Shape& shape);
  nlohmann::json loss();
  std::string trace_file(const Shape& shape, uint64_t index);

  double uniform(double a, double b);
  uint64_t below(uint64_t n) { return rng_.below(n); }
  bool chance(double p) { return rng_.uniform01() < p; }
  std::string seconds(double s);  // a duration string of s seconds ("12.5s")
  // A positive duration near `typical` seconds (a log-uniform factor of up to 30 either way).
  std::string around(double typical);

  uint64_t seed_;
  std::filesystem::path dir_;
  core::Rng rng_;
};

}  // namespace goodsim::testing
