// Whether this process was started by an MPI launcher (mpirun, mpiexec, srun),
// read from the environment the launchers set, without initializing MPI: a
// plain `goodsim sweep` never touches MPI.
#pragma once

#include <cstddef>
#include <optional>

namespace goodsim::app::mpi {

// The number of processes the launcher started (OMPI_COMM_WORLD_SIZE,
// PMI_SIZE, or 1 when only PMIX_RANK is set), or nullopt when not launched by
// one.
std::optional<size_t> launcher_world_size();

}  // namespace goodsim::app::mpi
