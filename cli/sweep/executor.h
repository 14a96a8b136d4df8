// Runs a sweep: every (grid point, seed) run that has no rows yet, on a pool
// of worker threads, each run in its own Simulation per policy
// (models::run_policy). A run's rows are appended to the results log as soon
// as the run finishes; adaptive replication adds seeds to a point when its
// round completes (see replication.h).
//
// Threading: PreparedScenario is only read by runs (each run copies what it
// mutates: the network, the cluster state), so runs of one grid point execute
// concurrently. The executor's own state is guarded by one mutex, never held
// while simulating.
#pragma once

#include <atomic>
#include <cstddef>
#include <iosfwd>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <vector>

#include "cli/sweep/point_results.h"
#include "cli/sweep/progress.h"
#include "cli/sweep/stats.h"
#include "cli/sweep/sweep_plan.h"
#include "cli/sweep/task_pool.h"

namespace goodsim::cli::sweep {

// Thrown by SweepExecutor::run() when its cancel flag was raised.
class SweepCancelled : public std::runtime_error {
 public:
  SweepCancelled() : std::runtime_error("sweep cancelled") {}
};

class SweepExecutor {
 public:
  // `log`: where finished runs append their rows; null keeps rows in memory
  // only. `loaded`: rows already in the results file (--resume).
  SweepExecutor(const SweepPlan& plan, ResultsLog* log, const LoadedResults& loaded);

  // Runs until every point has all its seeds. REQUIRES: jobs >= 1.
  // Rethrows the first exception of a run (rows appended so far stay).
  // `cancel` (may be null) is polled before each policy run: once it is true,
  // no further run starts and run() throws SweepCancelled when the runs in
  // progress have returned. REQUIRES: `cancel` outlives run().
  void run(unsigned jobs, Progress::Mode mode, std::ostream& err,
           const std::atomic<bool>* cancel = nullptr);

  size_t seeds(size_t point) const { return counts_[point]; }
  const PointResults& results(size_t point) const { return results_[point]; }
  size_t runs_total() const { return total_; }
  size_t runs_resumed() const { return resumed_; }
  // Every row of the sweep, in canonical order.
  std::vector<ResultRow> canonical_rows() const;

 private:
  void advance(size_t point, TaskPool& pool);  // REQUIRES: mutex_ held
  void run_one(size_t point, size_t k, const std::vector<size_t>& policies, TaskPool& pool);
  std::vector<Estimate> goodput(size_t point, size_t n) const;

  const SweepPlan& plan_;
  ResultsLog* log_;
  const std::atomic<bool>* cancel_ = nullptr;
  std::mutex mutex_;
  std::vector<PointResults> results_;
  std::vector<size_t> counts_;       // seeds scheduled per point
  std::vector<size_t> outstanding_;  // runs of the current round not finished, per point
  size_t total_ = 0;                 // runs scheduled, all points
  size_t pending_ = 0;               // runs queued or running
  size_t resumed_ = 0;               // runs complete before this process started
  std::optional<Progress> progress_;
};

}  // namespace goodsim::cli::sweep
