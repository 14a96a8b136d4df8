// `goodsim calibrate SCENARIO --fit PATH=LO..HI ... --target FILE`: fits
// unknown scenario knobs to observed numbers (docs/calibrate.md). With
// `--choose`, fits them under every combination of discrete alternatives and
// picks the structure the data prefer (structures.h).
//
// Writes, atomically, DIR/calibrated.json (the scenario with the fitted
// values) and DIR/calibration.json (values, 95% intervals, residuals,
// chi-square, simulation count); prints a progress line per iteration on
// `err` and the result table on `out`.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace goodsim::app::calibrate {

struct CalibrateOptions {
  std::string scenario;
  std::vector<std::string> fits;       // --fit PATH=LO..HI, in order
  std::string target;                  // --target FILE (.csv or JSON)
  std::vector<std::string> sets;       // --set k=v, applied first
  size_t seeds = 4;                    // common random numbers: seeds per evaluation
  unsigned jobs = 0;                   // 0: the number of cores
  size_t restarts = 2;                 // starts after the box's centre
  std::optional<std::string> out_dir;  // default out/<scenario name>-calibrate
  bool quiet = false;                  // no progress lines
  std::vector<std::string> chooses;    // --choose PATH=A|B or NAME=@a.json|@b.json
  size_t max_structures = 64;          // most combinations of the choices
  std::vector<std::string> probes;     // --probe SET: where tied structures are compared
};

// Exit codes: 0 fitted, 2 bad input (ScenarioError propagates to main).
int calibrate_command(const CalibrateOptions& options, std::ostream& out, std::ostream& err);

}  // namespace goodsim::app::calibrate
