// goodsim sweep: a scenario over a grid of parameter values x seeds, every
// policy in each run, with summary statistics and paired policy differences.
// Files (all in DIR, see docs/sweep.md):
//   sweep.json   the sweep's definition, written before the first run
//   results.csv  one row per (grid point, seed, policy); appended while running,
//                rewritten atomically in canonical order at the end
//   summary.csv  per (grid point, policy, metric): n, mean, sd, 95% CI
//   paired.csv   per (grid point, policy, metric): paired difference to the
//                scenario's first policy, with its 95% CI
//
// With --shard i/n, DIR holds sweep.json (naming the shard) and results.csv
// of the shard's runs only; goodsim sweep-merge (merge.h) makes the other files.
#pragma once

#include <atomic>
#include <functional>
#include <iosfwd>
#include <string>

#include "app/sweep/progress.h"
#include "app/sweep/schedule.h"
#include "app/sweep/sweep_plan.h"

namespace goodsim::app::sweep {

// Executes every task the schedule hands out (including later rounds),
// appending each task's rows to the log as it finishes. Returns how the work
// was spread, for the report ("2 jobs"). The default runs on `jobs` threads
// of this process; app/mpi spreads tasks over MPI ranks.
using SweepDriver = std::function<std::string(const SweepPlan&, ResultsLog&, SweepSchedule&,
                                              unsigned jobs, Progress::Mode, std::ostream& err)>;

// The three tables of a finished sweep, as the text of results.csv (canonical
// order), summary.csv and paired.csv.
struct SweepTables {
  std::string results;
  std::string summary;
  std::string paired;
};

// The tables of a schedule whose work is done.
SweepTables sweep_tables(const SweepPlan& plan, const SweepSchedule& schedule);

// Runs `plan` in memory (nothing is read from or written to plan.dir, no
// progress is shown) on `jobs` worker threads (0: one per core), and returns
// its tables: the same text as the files `goodsim sweep` writes. `cancel`:
// see SweepExecutor::run(). Throws SweepCancelled, or the first exception of
// a run.
SweepTables run_sweep(const SweepPlan& plan, unsigned jobs,
                      const std::atomic<bool>* cancel = nullptr);

// Runs the sweep. Bad input (ScenarioError) is thrown before any run starts
// and before anything is written. Returns 0. `progress` overrides the mode
// chosen from stderr (tests, benchmarks); --quiet turns it off.
int sweep_command(const SweepOptions& options, std::ostream& out, std::ostream& err,
                  std::optional<Progress::Mode> progress = std::nullopt,
                  const SweepDriver& driver = {});

// Writes DIR/results.csv in canonical order and, unless the plan is a shard,
// summary.csv and paired.csv (each atomically).
void write_outputs(const SweepPlan& plan, const SweepSchedule& schedule);

// The closing report: runs, time, the console table, the files written.
void print_report(const SweepPlan& plan, const SweepSchedule& schedule, double seconds,
                  const std::string& workers, std::ostream& out);

}  // namespace goodsim::app::sweep
