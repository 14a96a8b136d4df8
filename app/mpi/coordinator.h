// Rank 0 of an MPI sweep: hands the schedule's tasks out to every rank and
// records what comes back.
//
// Dynamic load balancing: a worker holds at most the tasks it asked for
// (2 x its --jobs: one running and one waiting per thread), and asks for one
// more for each task it returns, so fast ranks take more tasks and a long
// run never holds up others. Tasks go out and results come back in batches
// (all a worker has finished since its last message), so messages per task
// fall as tasks get shorter. Rank 0 runs tasks on its own threads too.
//
// Rank 0 alone writes: each task's rows are appended to the results log as
// they arrive (so --resume after a kill of any rank loses nothing complete),
// the schedule decides adaptive replication from all ranks' rows, and the
// progress bar counts every rank's runs.
//
// A worker's failed task stops the sweep with a message naming the rank and
// the task. A rank that dies makes the MPI runtime stop the job with SIGTERM;
// rank 0 then names the dead rank (when it is on rank 0's node) and the tasks
// it held, and exits with code 2.
#pragma once

#include <condition_variable>
#include <deque>
#include <exception>
#include <iosfwd>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "app/mpi/mpi_session.h"
#include "app/sweep/progress.h"
#include "app/sweep/schedule.h"
#include "app/sweep/task_pool.h"

namespace goodsim::app::mpi {

class Coordinator {
 public:
  Coordinator(MpiSession& mpi, const sweep::SweepPlan& plan, sweep::ResultsLog& log,
              sweep::SweepSchedule& schedule);

  // Runs every task; returns "R MPI ranks x J jobs". REQUIRES: jobs >= 1.
  // Throws std::runtime_error when a task fails on some rank; the workers
  // are then left running, and the caller must end the job (MPI_Abort).
  std::string run(unsigned jobs, sweep::Progress::Mode mode, std::ostream& err);

 private:
  struct Rank {
    size_t want = 0;                       // tasks it can take now
    std::vector<sweep::SweepTask> holds;  // sent, not yet returned
    WorkerInfo info;
  };

  void loop(sweep::TaskPool& pool, std::ostream& err);
  bool receive();
  bool collect_local();
  void dispatch(sweep::TaskPool& pool);
  void run_local(const sweep::SweepTask& task);
  void record(int rank, sweep::TaskResult result);
  void stop_workers();
  [[noreturn]] void report_teardown(std::ostream& err) const;
  std::string held_tasks(int rank) const;

  MpiSession& mpi_;
  const sweep::SweepPlan& plan_;
  sweep::ResultsLog& log_;
  sweep::SweepSchedule& schedule_;
  std::deque<sweep::SweepTask> queue_;
  std::vector<Rank> ranks_;  // by rank; [0] is this process's threads
  std::optional<sweep::Progress> progress_;

  // Tasks finished by this process's threads, for the MPI thread.
  std::mutex mutex_;
  std::condition_variable done_cv_;
  std::vector<sweep::TaskResult> local_done_;
  std::exception_ptr local_error_;
};

}  // namespace goodsim::app::mpi
