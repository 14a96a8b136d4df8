// sweep_entry for a goodsim built with MPI: rank 0 runs sweep_command with
// the Coordinator as its driver, the other ranks run workers. Every rank
// builds the plan from the same command line; rank 0 alone checks and writes
// the output directory, and tells the others whether to go.
#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <thread>

#include "app/mpi/coordinator.h"
#include "app/mpi/launch_env.h"
#include "app/mpi/mpi_session.h"
#include "app/mpi/sweep_entry.h"
#include "app/mpi/worker.h"
#include "app/sweep/sweep.h"

namespace goodsim::app::mpi {
namespace {

// Rank 0. Bad input (before the go) is thrown as usual; a failure after it
// ends the whole job, since workers may be mid-task.
int coordinate(MpiSession& mpi, const sweep::SweepOptions& options, std::ostream& out,
               std::ostream& err) {
  bool went = false;
  const sweep::SweepDriver driver = [&](const sweep::SweepPlan& plan, sweep::ResultsLog& log,
                                        sweep::SweepSchedule& schedule, unsigned jobs,
                                        sweep::Progress::Mode mode, std::ostream& e) {
    went = true;
    mpi.broadcast(true);
    return Coordinator(mpi, plan, log, schedule).run(jobs, mode, e);
  };
  try {
    return sweep::sweep_command(options, out, err, std::nullopt, driver);
  } catch (const std::exception& e) {
    if (!went) {
      mpi.broadcast(false);
      throw;
    }
    err << "error: " << e.what() << "\n" << std::flush;
    mpi.abort(2);
  }
}

// Ranks > 0: the plan (only read), then tasks until rank 0 says stop.
int work(MpiSession& mpi, const sweep::SweepOptions& options) {
  const models::Registry registry = models::builtin_registry();
  std::optional<sweep::SweepPlan> plan;
  std::string error;
  try {
    plan.emplace(sweep::make_plan(options, registry));
  } catch (const std::exception& e) {
    error = e.what();
  }
  if (!mpi.broadcast(false)) return 2;  // rank 0 refused the sweep and said why
  if (!plan) {
    // Rank 0 could prepare it but this rank not (a file missing on this node).
    mpi.send(0, Tag::kError, encode_text("cannot prepare the sweep: " + error));
    while (true) std::this_thread::sleep_for(std::chrono::seconds(1));  // rank 0 aborts the job
  }
  return run_worker(mpi, *plan, options.jobs);
}

}  // namespace

int sweep_entry(const sweep::SweepOptions& options, std::ostream& out, std::ostream& err) {
  if (!launcher_world_size()) return sweep::sweep_command(options, out, err);
  MpiSession mpi;
  sweep::SweepOptions o = options;
  if (o.jobs == 0) {
    // The node's cores shared among its ranks.
    const unsigned cores = sweep::TaskPool::default_threads();
    o.jobs = std::max(1u, cores / static_cast<unsigned>(mpi.local_size()));
  }
  if (mpi.size() == 1) return sweep::sweep_command(o, out, err);
  return mpi.rank() == 0 ? coordinate(mpi, o, out, err) : work(mpi, o);
}

}  // namespace goodsim::app::mpi
