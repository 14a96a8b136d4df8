// goodsim solve: the knob value that meets requirements on a policy's metrics
// (docs/solve.md). Writes, in DIR (default out/<scenario name>-solve):
//   evaluations.csv  one row per (knob value, requirement): seeds, mean, sd,
//                    the one-sided confidence bounds and the verdict
//   solve.json       the question, the answer, its bracketing values, the verdict
// Plot them with python3 analysis/plot_solve.py DIR.
#pragma once

#include <iosfwd>

#include "app/solve/solve_spec.h"

namespace goodsim::app::solve {

// Exit status: 0 an answer was found, 3 no value in the range meets the
// requirements. Bad input throws ScenarioError before anything is written.
int solve_command(const SolveOptions& options, std::ostream& out, std::ostream& err);

}  // namespace goodsim::app::solve
