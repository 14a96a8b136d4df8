// sweep_entry for a goodsim built without MPI.
#include <fmt/format.h>

#include "app/mpi/launch_env.h"
#include "app/mpi/sweep_entry.h"
#include "app/sweep/sweep.h"
#include "sim/scenario/error.h"

namespace goodsim::app::mpi {

int sweep_entry(const sweep::SweepOptions& options, std::ostream& out, std::ostream& err) {
  const std::optional<size_t> world = launcher_world_size();
  if (world && *world > 1) {
    throw scenario::ScenarioError(
        "sweep", "",
        fmt::format("started as {} MPI processes, but this goodsim was built without MPI "
                    "(install libopenmpi-dev and reconfigure); use one process, or --shard",
                    *world));
  }
  return sweep::sweep_command(options, out, err);
}

}  // namespace goodsim::app::mpi
