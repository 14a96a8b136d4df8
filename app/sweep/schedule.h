// Which runs of a sweep remain, independent of where they execute.
//
// A task is one (grid point, seed index) run: the policies of that run that
// have no row yet. The schedule hands out the first round of every grid point,
// records finished tasks, and, when a point's round is complete, applies the
// replication rule (replication.h) to hand out the next round. It never
// simulates: the local executor (executor.h), the MPI coordinator (app/mpi)
// and sweep-merge (which only checks that nothing is missing) drive it.
//
// Sharding: with a Shard, only the tasks the shard owns are handed out (see
// Shard::owns); the others count as done by another shard.
//
// Not thread-safe: callers serialize access.
#pragma once

#include <atomic>
#include <cstddef>
#include <stdexcept>
#include <cstdint>
#include <optional>
#include <vector>

#include "app/sweep/point_results.h"
#include "app/sweep/stats.h"
#include "app/sweep/sweep_plan.h"

namespace goodsim::app::sweep {

struct SweepTask {
  size_t point = 0;
  size_t k = 0;                   // seed index: the seed is replication.seed(k)
  std::vector<size_t> policies;   // policy indices without a row, in order
};

// The rows one task produced, in policy order.
struct TaskResult {
  SweepTask task;
  std::vector<ResultRow> rows;
};

// Thrown by run_task() when its cancel flag was raised.
class SweepCancelled : public std::runtime_error {
 public:
  SweepCancelled() : std::runtime_error("sweep cancelled") {}
};

// Runs the task's policies (the simulation). Thread-safe: reads the plan only.
// `cancel` (may be null) is polled before each policy run: once it is true,
// no further run starts and SweepCancelled is thrown.
TaskResult run_task(const SweepPlan& plan, const SweepTask& task,
                    const std::atomic<bool>* cancel = nullptr);

class SweepSchedule {
 public:
  // `loaded`: rows already present (--resume, or the shards being merged).
  SweepSchedule(const SweepPlan& plan, const LoadedResults& loaded);

  // The first round of every grid point (tasks without rows yet). Call once.
  std::vector<SweepTask> start();
  // Records a finished task; returns the tasks of the point's next round
  // when this completed the round and replication asks for more seeds.
  std::vector<SweepTask> complete(TaskResult result);

  size_t pending() const { return pending_; }  // tasks handed out, not completed
  size_t seeds(size_t point) const { return counts_[point]; }
  const PointResults& results(size_t point) const { return results_[point]; }
  size_t runs_total() const { return total_; }     // this process's share
  size_t runs_resumed() const { return resumed_; }
  // Every row present, in canonical order.
  std::vector<ResultRow> canonical_rows() const;

 private:
  void advance(size_t point, std::vector<SweepTask>& out);
  std::vector<Estimate> goodput(size_t point, size_t n) const;

  const SweepPlan& plan_;
  std::vector<PointResults> results_;
  std::vector<size_t> counts_;       // seeds scheduled per point
  std::vector<size_t> outstanding_;  // tasks of the current round not finished, per point
  size_t total_ = 0;
  size_t pending_ = 0;
  size_t resumed_ = 0;
};

}  // namespace goodsim::app::sweep
