// A worker rank (rank > 0) of an MPI sweep: runs the tasks rank 0 sends on
// `jobs` threads and returns their rows (see coordinator.h for the protocol).
// Asks for 2 x jobs tasks at first and for one more per task it returns.
// Writes no file. When the MPI runtime stops the job (SIGTERM) it waits a
// moment before exiting, so that rank 0 can tell the rank that died from
// the ones being stopped.
#pragma once

#include "app/mpi/mpi_session.h"
#include "app/sweep/sweep_plan.h"

namespace goodsim::app::mpi {

// Returns 0 when rank 0 says stop. REQUIRES: jobs >= 1.
int run_worker(const MpiSession& mpi, const sweep::SweepPlan& plan, unsigned jobs);

}  // namespace goodsim::app::mpi
