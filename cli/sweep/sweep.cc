#include "cli/sweep/sweep.h"

#include <fmt/format.h>

#include <chrono>
#include <ostream>
#include <sstream>

#include "cli/sweep/report.h"
#include "sim/output/atomic_file.h"

namespace goodsim::cli::sweep {
namespace {

constexpr size_t kConsoleRows = 40;

// Per grid point: the executor's results and the seeds the point ended with.
struct Finished {
  std::vector<const PointResults*> results;
  std::vector<size_t> seeds;

  Finished(const SweepPlan& plan, const SweepExecutor& ex) {
    for (size_t p = 0; p < plan.points.size(); ++p) {
      results.push_back(&ex.results(p));
      seeds.push_back(ex.seeds(p));
    }
  }
};

void write_outputs(const SweepPlan& plan, const SweepExecutor& ex) {
  const SweepTables t = sweep_tables(plan, ex);
  // Statistics first: results.csv replaced last means a kill in between
  // leaves a resumable sweep whose final step simply runs again.
  output::write_file_atomically(plan.dir / "summary.csv", t.summary);
  output::write_file_atomically(plan.dir / "paired.csv", t.paired);
  output::write_file_atomically(plan.dir / "results.csv", t.results);
}

// Grid points that stopped at --max-seeds with a goodput CI still too wide.
size_t points_short_of_target(const SweepPlan& plan, const SweepExecutor& ex) {
  const Replication& r = plan.replication;
  if (!r.ci_target) return 0;
  size_t count = 0;
  for (size_t p = 0; p < plan.points.size(); ++p) {
    const size_t n = ex.seeds(p);
    std::vector<Estimate> g;
    for (size_t i = 0; i < ex.results(p).policies(); ++i) {
      g.push_back(estimate(present(ex.results(p).metric(i, kGoodput, n))));
    }
    bool met = true;
    for (const Estimate& e : g) met = met && e.ci95 < *r.ci_target;
    if (!met) ++count;
  }
  return count;
}

void print_report(const SweepPlan& plan, const SweepExecutor& ex, double seconds, unsigned jobs,
                  std::ostream& out) {
  const Finished f(plan, ex);
  out << fmt::format(
      "goodsim sweep: {} grid point{}, {} runs ({} resumed) in {:.3g} s with {} job{}\n\n",
      plan.points.size(), plan.points.size() == 1 ? "" : "s", ex.runs_total(), ex.runs_resumed(),
      seconds, jobs, jobs == 1 ? "" : "s");
  out << console_table(SweepOutcome{plan.table, f.results, f.seeds}, kConsoleRows) << "\n";
  if (const size_t short_points = points_short_of_target(plan, ex)) {
    out << fmt::format(
        "note: {} grid point(s) reached --max-seeds {} before the goodput CI "
        "half-width fell below {}\n",
        short_points, plan.replication.max_seeds, *plan.replication.ci_target);
  }
  const std::string d = plan.dir.string();
  out << fmt::format("wrote {0}/results.csv, {0}/summary.csv, {0}/paired.csv\n", d);
}

}  // namespace

SweepTables sweep_tables(const SweepPlan& plan, const SweepExecutor& ex) {
  SweepTables t;
  t.results = results_header(plan.table);
  for (const ResultRow& row : ex.canonical_rows()) t.results += format_row(plan.table, row);
  const Finished f(plan, ex);
  const SweepOutcome outcome{plan.table, f.results, f.seeds};
  t.summary = summary_csv(outcome);
  t.paired = paired_csv(outcome);
  return t;
}

SweepTables run_sweep(const SweepPlan& plan, unsigned jobs, const std::atomic<bool>* cancel) {
  SweepExecutor ex(plan, nullptr, LoadedResults{});
  std::ostringstream no_progress;
  ex.run(jobs > 0 ? jobs : TaskPool::default_threads(), Progress::Mode::kOff, no_progress, cancel);
  return sweep_tables(plan, ex);
}

int sweep_command(const SweepOptions& options, std::ostream& out, std::ostream& err,
                  std::optional<Progress::Mode> progress) {
  const auto start = std::chrono::steady_clock::now();
  const models::Registry registry = models::builtin_registry();
  const SweepPlan plan = make_plan(options, registry);
  const LoadedResults loaded = inspect_dir(plan, options.resume);
  // Input is good: from here on files are written.
  write_definition(plan);
  ResultsLog log(plan.dir / "results.csv", loaded.complete_bytes, results_header(plan.table));
  SweepExecutor ex(plan, &log, loaded);
  const unsigned jobs = options.jobs > 0 ? options.jobs : TaskPool::default_threads();
  const Progress::Mode mode =
      options.quiet ? Progress::Mode::kOff : progress.value_or(Progress::mode_for_stderr());
  ex.run(jobs, mode, err);
  write_outputs(plan, ex);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!options.quiet) print_report(plan, ex, seconds, jobs, out);
  return 0;
}

}  // namespace goodsim::cli::sweep
