// Runs a sweep's tasks (schedule.h) on a pool of worker threads in this
// process. A task's rows are appended to the results log as soon as it
// finishes; adaptive replication's next rounds are queued as rounds complete.
//
// Threading: PreparedScenario is only read by runs (each run copies what it
// mutates: the network, the cluster state), so runs of one grid point execute
// concurrently. The schedule is guarded by one mutex, never held while
// simulating.
#pragma once

#include <atomic>
#include <iosfwd>
#include <mutex>
#include <optional>

#include "app/sweep/progress.h"
#include "app/sweep/schedule.h"
#include "app/sweep/task_pool.h"

namespace goodsim::app::sweep {

class SweepExecutor {
 public:
  // `log`: where finished tasks append their rows; null keeps rows in the
  // schedule only (an in-memory sweep).
  SweepExecutor(const SweepPlan& plan, ResultsLog* log, SweepSchedule& schedule)
      : plan_(plan), log_(log), schedule_(schedule) {}

  // Runs until the schedule has nothing left. REQUIRES: jobs >= 1.
  // Rethrows the first exception of a run (rows appended so far stay).
  // `cancel` (may be null) is polled before each policy run: once it is true,
  // no further run starts and run() throws SweepCancelled when the runs in
  // progress have returned. REQUIRES: `cancel` outlives run().
  void run(unsigned jobs, Progress::Mode mode, std::ostream& err,
           const std::atomic<bool>* cancel = nullptr);

 private:
  void submit(std::vector<SweepTask> tasks, TaskPool& pool);  // REQUIRES: mutex_ held
  void run_one(const SweepTask& task, TaskPool& pool);

  const SweepPlan& plan_;
  ResultsLog* log_;
  SweepSchedule& schedule_;
  const std::atomic<bool>* cancel_ = nullptr;
  std::mutex mutex_;
  std::optional<Progress> progress_;
};

// The text of a task's rows for the results log.
std::string format_rows(const SweepTable& table, const std::vector<ResultRow>& rows);

}  // namespace goodsim::app::sweep
