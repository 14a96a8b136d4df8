// `goodsim calibrate --choose`: the recovery structure the data selects.
//
// Every combination of the discrete knobs (Choice) is a structure. For each,
// the continuous knobs are fitted as without --choose (fit.h), on the same
// seeds (common random numbers); the structures' fits run on their own
// threads and share one pool of --jobs simulation workers (SharedRuns), and
// each fit is deterministic, so the result never depends on --jobs.
//
// Information criterion (Akaike's): IC = chi2 + 2 k, where k is the number
// of knobs the structure's observations move (the rank of the Jacobian at its
// best point): a knob that has no effect under a structure costs it nothing,
// and of two structures that fit equally well the one that needs fewer knobs
// wins. The best structure has the lowest IC (ties: the earlier in
// enumeration order); its lead is delta IC to the runner-up and its Akaike
// weight exp(-delta_i / 2) / sum_j exp(-delta_j / 2).
//
// Not separable: every other structure with delta IC < kSeparation (2, the
// usual reading of "the data support both") is named with the best one, and
// with the observations that would separate them: among the targets, the one
// where their simulated values differ most (in sigmas); among the probes
// (--probe SET: the targets' policies and metrics under other overrides,
// simulated at each structure's best knobs) those where they differ by more
// than 2 sqrt(sigma^2 + se_a^2 + se_b^2), sigma the smallest fit sigma of a
// target of the same policy and metric.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/calibrate/choice.h"
#include "app/calibrate/fit.h"
#include "app/calibrate/knob.h"
#include "app/calibrate/target_file.h"
#include "app/scenario_source.h"

namespace goodsim::app::calibrate {

inline constexpr double kSeparation = 2.0;

struct StructureFit {
  std::string label;                 // "a=x, b=@y.json"
  std::vector<size_t> alternatives;  // one per choice
  FitResult fit;
  double criterion = 0;              // chi2 + 2 rank
  double delta = 0;                  // criterion - the best's
  double weight = 0;                 // Akaike weight
  size_t simulations = 0;
  nlohmann::json document;           // the calibrated scenario of this structure
  Simulated probes;                  // at the probes (tied structures only)
};

struct ProbeGap {
  std::string where;  // "dp goodput at cluster.chips=2.4e6"
  double best = 0, other = 0, threshold = 0;
};

struct Separation {
  size_t other = 0;  // index of the structure tied with the best
  std::string target_where;  // the target where they differ most
  double target_sigmas = 0;
  std::vector<ProbeGap> probes;  // the probes that separate them
};

struct Selection {
  std::vector<Knob> knobs;
  std::vector<Observation> observations;
  std::vector<Observation> probes;   // one per probe set x (policy, metric) of the targets
  std::vector<StructureFit> fits;    // in enumeration order
  std::vector<size_t> ranking;       // by criterion
  std::vector<Separation> tied;      // structures within kSeparation of the best
  size_t simulations = 0;
};

struct SelectOptions {
  size_t seeds = 4;
  unsigned jobs = 1;
  FitOptions fit;
  std::vector<std::string> probes;  // --probe sets ("a=1;b=2")
};

// The number of structures; alternatives of structure i (first choice slowest).
size_t structure_count(const std::vector<Choice>& choices);
std::vector<size_t> structure_alternatives(size_t i, const std::vector<Choice>& choices);
double information_criterion(double chi2, size_t knobs);

// Checks every structure against the scenario (ScenarioError, nothing run),
// then fits them all. REQUIRES: structure_count(choices) >= 1.
Selection select_structure(const ScenarioSource& base, const std::vector<Choice>& choices,
                           const std::vector<Knob>& knobs,
                           const std::vector<Observation>& observations,
                           const SelectOptions& options, std::ostream& progress);

// The table of structures and the verdict, for people.
std::string structure_report(const Selection& s);
// The same, machine-readable (calibration.json "structures").
nlohmann::json structure_json(const Selection& s);

}  // namespace goodsim::app::calibrate
