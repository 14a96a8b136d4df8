// goodsim._core.sweep(): `goodsim sweep` in memory, without the GIL,
// returning the text of results.csv, summary.csv and paired.csv.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <vector>

#include "app/sweep/sweep.h"
#include "python/bindings.h"
#include "python/interruptible.h"
#include "python/scenario_handle.h"

namespace goodsim::python {

namespace {

py::tuple sweep(const ScenarioHandle& s, const std::vector<std::string>& vary, size_t seeds,
                unsigned jobs, std::optional<double> ci_target, std::optional<size_t> max_seeds) {
  app::sweep::SweepTables tables;
  run_interruptibly([&](const std::atomic<bool>& cancel) {
    app::sweep::SweepOptions options;
    options.vary = vary;
    options.seeds = seeds;
    options.jobs = jobs;
    options.ci_target = ci_target;
    options.max_seeds = max_seeds;
    options.quiet = true;
    const models::Registry registry = models::builtin_registry();
    const app::sweep::SweepPlan plan = app::sweep::make_plan(s.source(), options, registry);
    tables = app::sweep::run_sweep(plan, jobs, &cancel);
  });
  return py::make_tuple(tables.results, tables.summary, tables.paired);
}

}  // namespace

constexpr const char* kSweepDoc =
    "Runs a sweep of `scenario` in memory and returns (results_csv, summary_csv,\n"
    "paired_csv): the text `goodsim sweep` writes to its three files. vary: 'PATH=VALUES'\n"
    "strings as --vary takes them; seeds, ci_target, max_seeds: as --seeds, --ci-target,\n"
    "--max-seeds; jobs: worker threads (0: one per core). Ctrl-C stops starting runs,\n"
    "waits for those in progress and raises KeyboardInterrupt.";

void register_sweep(py::module_& m) {
  m.def("sweep", &sweep, kSweepDoc, "scenario"_a, "vary"_a, "seeds"_a, "jobs"_a,
        "ci_target"_a = py::none(), "max_seeds"_a = py::none());
}

}  // namespace goodsim::python
