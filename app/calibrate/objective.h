// The simulated side of a calibration: for candidate knob values, the mean of
// each observation's metric over a fixed set of seeds.
//
// Common random numbers: every candidate runs the same seeds (the scenario's
// seed and the next seeds - 1), so the failure history is the same for all
// candidates and the simulated means move smoothly with the knobs instead of
// jumping with the noise. The runs of one evaluation go to the sweep's
// thread pool (app/sweep/task_pool.h); the result never depends on --jobs.
//
// Threading: evaluate() is called from one thread; it runs its simulations
// on the pool and returns when all are done.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "app/calibrate/knob.h"
#include "app/calibrate/shared_runs.h"
#include "app/calibrate/target_file.h"
#include "app/scenario_source.h"
#include "models/registry.h"

namespace goodsim::app::calibrate {

// Simulated means and their standard errors, one per observation.
struct Simulated {
  std::vector<double> mean;
  std::vector<double> se;  // sd / sqrt(seeds); 0 with one seed
};

class Objective {
 public:
  // Checks every observation against the scenario with the knobs at both ends
  // of their ranges (unknown policy, bad override, knob path the scenario
  // rejects): ScenarioError, nothing run. REQUIRES: seeds >= 1, jobs >= 1.
  // With `runs`, simulations go to that shared pool (it must outlive this);
  // without, each evaluation runs them on a pool of `jobs` workers.
  Objective(ScenarioSource base, std::vector<Knob> knobs, std::vector<Observation> observations,
            size_t seeds, unsigned jobs, SharedRuns* runs = nullptr);

  // Simulates every observation at each point (normalised coordinates, one
  // per knob, clamped to [0, 1]). Throws ScenarioError when a run has no
  // value for its metric.
  std::vector<Simulated> evaluate(const std::vector<std::vector<double>>& points);

  // The scenario document with the knobs at `values` (for the output file).
  nlohmann::json calibrated_document(const std::vector<double>& values) const;

  const std::vector<Knob>& knobs() const { return knobs_; }
  const std::vector<Observation>& observations() const { return observations_; }
  size_t seeds() const { return seeds_; }
  size_t simulations() const { return simulations_; }  // policy runs so far

 private:
  ScenarioSource source(size_t observation, const std::vector<double>& values) const;

  ScenarioSource base_;
  std::vector<Knob> knobs_;
  std::vector<Observation> observations_;
  size_t seeds_;
  unsigned jobs_;
  SharedRuns* runs_;
  models::Registry registry_;
  size_t simulations_ = 0;
};

}  // namespace goodsim::app::calibrate
