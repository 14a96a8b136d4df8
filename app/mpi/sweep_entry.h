// `goodsim sweep` as started from the command line: in this process, or, when
// started by an MPI launcher and built with MPI (GOODSIM_MPI), spread over
// the MPI ranks (mpi_sweep.h). Built without MPI, a launch of more than one
// process is refused: each would run the whole sweep into the same directory.
#pragma once

#include <iosfwd>

#include "app/sweep/sweep_plan.h"

namespace goodsim::app::mpi {

// Returns the exit code; throws ScenarioError on bad input (as sweep_command).
int sweep_entry(const sweep::SweepOptions& options, std::ostream& out, std::ostream& err);

}  // namespace goodsim::app::mpi
