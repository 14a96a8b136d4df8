#include "app/mpi/launch_env.h"

#include <cstdlib>
#include <string>

namespace goodsim::app::mpi {

std::optional<size_t> launcher_world_size() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"}) {
    if (const char* v = std::getenv(name)) {
      try {
        return static_cast<size_t>(std::stoul(v));
      } catch (const std::exception&) {
        return std::nullopt;
      }
    }
  }
  if (std::getenv("PMIX_RANK")) return size_t{1};  // the size comes from MPI itself
  return std::nullopt;
}

}  // namespace goodsim::app::mpi
