#include "app/sweep/sweep.h"

#include <fmt/format.h>

#include <chrono>
#include <ostream>
#include <sstream>

#include "app/sweep/executor.h"
#include "app/sweep/report.h"
#include "sim/output/atomic_file.h"

namespace goodsim::app::sweep {
namespace {

constexpr size_t kConsoleRows = 40;

// Per grid point: the schedule's results and the seeds the point ended with.
struct Finished {
  std::vector<const PointResults*> results;
  std::vector<size_t> seeds;

  Finished(const SweepPlan& plan, const SweepSchedule& s) {
    for (size_t p = 0; p < plan.points.size(); ++p) {
      results.push_back(&s.results(p));
      seeds.push_back(s.seeds(p));
    }
  }
};

// Grid points that stopped at --max-seeds with a goodput CI still too wide.
size_t points_short_of_target(const SweepPlan& plan, const SweepSchedule& s) {
  const Replication& r = plan.replication;
  if (!r.ci_target) return 0;
  size_t count = 0;
  for (size_t p = 0; p < plan.points.size(); ++p) {
    const size_t n = s.seeds(p);
    bool met = true;
    for (size_t i = 0; i < s.results(p).policies(); ++i) {
      met = met && estimate(present(s.results(p).metric(i, kGoodput, n))).ci95 < *r.ci_target;
    }
    if (!met) ++count;
  }
  return count;
}

std::string run_locally(const SweepPlan& plan, ResultsLog& log, SweepSchedule& schedule,
                        unsigned jobs, Progress::Mode mode, std::ostream& err) {
  SweepExecutor(plan, &log, schedule).run(jobs, mode, err);
  return fmt::format("{} job{}", jobs, jobs == 1 ? "" : "s");
}

}  // namespace

namespace {

std::string results_text(const SweepPlan& plan, const SweepSchedule& schedule) {
  std::string results = results_header(plan.table);
  for (const ResultRow& row : schedule.canonical_rows()) results += format_row(plan.table, row);
  return results;
}

}  // namespace

SweepTables sweep_tables(const SweepPlan& plan, const SweepSchedule& schedule) {
  const Finished f(plan, schedule);
  const SweepOutcome outcome{plan.table, f.results, f.seeds};
  return {results_text(plan, schedule), summary_csv(outcome), paired_csv(outcome)};
}

SweepTables run_sweep(const SweepPlan& plan, unsigned jobs, const std::atomic<bool>* cancel) {
  SweepSchedule schedule(plan, LoadedResults{});
  std::ostringstream no_progress;
  SweepExecutor(plan, nullptr, schedule)
      .run(jobs > 0 ? jobs : TaskPool::default_threads(), Progress::Mode::kOff, no_progress,
           cancel);
  return sweep_tables(plan, schedule);
}

void write_outputs(const SweepPlan& plan, const SweepSchedule& schedule) {
  if (!plan.shard) {
    const SweepTables t = sweep_tables(plan, schedule);
    // Statistics first: results.csv replaced last means a kill in between
    // leaves a resumable sweep whose final step simply runs again.
    output::write_file_atomically(plan.dir / "summary.csv", t.summary);
    output::write_file_atomically(plan.dir / "paired.csv", t.paired);
  }
  output::write_file_atomically(plan.dir / "results.csv", results_text(plan, schedule));
}

void print_report(const SweepPlan& plan, const SweepSchedule& schedule, double seconds,
                  const std::string& workers, std::ostream& out) {
  const std::string d = plan.dir.string();
  const std::string part =
      plan.shard ? fmt::format(" (shard {} of {})", plan.shard->index, plan.shard->count) : "";
  out << fmt::format("goodsim sweep{}: {} grid point{}, {} runs ({} resumed) in {:.3g} s with {}\n",
                     part, plan.points.size(), plan.points.size() == 1 ? "" : "s",
                     schedule.runs_total(), schedule.runs_resumed(), seconds, workers);
  if (plan.shard) {
    out << fmt::format("wrote {}/results.csv; combine the shards with goodsim sweep-merge\n", d);
    return;
  }
  const Finished f(plan, schedule);
  out << "\n" << console_table(SweepOutcome{plan.table, f.results, f.seeds}, kConsoleRows) << "\n";
  if (const size_t short_points = points_short_of_target(plan, schedule)) {
    out << fmt::format(
        "note: {} grid point(s) reached --max-seeds {} before the goodput CI "
        "half-width fell below {}\n",
        short_points, plan.replication.max_seeds, *plan.replication.ci_target);
  }
  out << fmt::format("wrote {0}/results.csv, {0}/summary.csv, {0}/paired.csv\n", d);
}

int sweep_command(const SweepOptions& options, std::ostream& out, std::ostream& err,
                  std::optional<Progress::Mode> progress, const SweepDriver& driver) {
  const auto start = std::chrono::steady_clock::now();
  const models::Registry registry = models::builtin_registry();
  const SweepPlan plan = make_plan(options, registry);
  const LoadedResults loaded = inspect_dir(plan, options.resume);
  // Input is good: from here on files are written.
  write_definition(plan);
  ResultsLog log(plan.dir / "results.csv", loaded.complete_bytes, results_header(plan.table));
  SweepSchedule schedule(plan, loaded);
  const unsigned jobs = options.jobs > 0 ? options.jobs : TaskPool::default_threads();
  const Progress::Mode mode =
      options.quiet ? Progress::Mode::kOff : progress.value_or(Progress::mode_for_stderr());
  const SweepDriver run = driver ? driver : SweepDriver(run_locally);
  const std::string workers = run(plan, log, schedule, jobs, mode, err);
  write_outputs(plan, schedule);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!options.quiet) print_report(plan, schedule, seconds, workers, out);
  return 0;
}

}  // namespace goodsim::app::sweep
