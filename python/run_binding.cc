// goodsim._core.run(): every policy of a scenario for one seed, without the
// GIL, returning the summary as JSON text and the time series as columns.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <memory>
#include <optional>
#include <string>

#include "python/bindings.h"
#include "python/interruptible.h"
#include "python/scenario_handle.h"
#include "sim/output/summary.h"
#include "sim/output/trace_writer.h"

namespace goodsim::python {

namespace {

// The rows of every policy's series, in timeseries.csv order, as one column.
template <class T, class Get>
py::array_t<T> column(const output::RunResult& run, Get get) {
  size_t rows = 0;
  for (const output::PolicyResult& p : run.policies) rows += p.series.size();
  py::array_t<T> out(static_cast<py::ssize_t>(rows));
  auto cells = out.template mutable_unchecked<1>();
  py::ssize_t i = 0;
  for (const output::PolicyResult& p : run.policies) {
    for (const output::TimeseriesRow& r : p.series) cells(i++) = get(r);
  }
  return out;
}

py::dict timeseries_columns(const output::RunResult& run) {
  py::list policy;
  for (const output::PolicyResult& p : run.policies) {
    const py::str name(p.name);
    for (size_t i = 0; i < p.series.size(); ++i) policy.append(name);
  }
  using Row = output::TimeseriesRow;
  return py::dict(
      "policy"_a = policy, "time_s"_a = column<double>(run, [](const Row& r) { return r.time_s; }),
      "healthy_chips"_a =
          column<int64_t>(run, [](const Row& r) { return static_cast<int64_t>(r.healthy_chips); }),
      "active_chips"_a =
          column<int64_t>(run, [](const Row& r) { return static_cast<int64_t>(r.active_chips); }),
      "training"_a = column<bool>(run, [](const Row& r) { return r.training; }),
      "steps"_a = column<int64_t>(run, [](const Row& r) { return static_cast<int64_t>(r.steps); }),
      "tokens"_a = column<double>(run, [](const Row& r) { return r.tokens; }),
      "goodput"_a = column<double>(run, [](const Row& r) { return r.goodput; }),
      "downtime_s"_a = column<double>(run, [](const Row& r) { return r.downtime_s; }),
      "loss"_a = column<double>(run, [](const Row& r) { return r.loss.value_or(std::nan("")); }));
}

output::RunResult simulate(const ScenarioHandle& s, uint64_t seed,
                           const std::optional<std::string>& trace_path,
                           const std::atomic<bool>& cancel) {
  const models::PreparedScenario& prepared = s.prepared();
  std::unique_ptr<output::TraceWriter> trace;
  if (trace_path) {
    trace = std::make_unique<output::TraceWriter>(*trace_path, models::trace_options(prepared));
  }
  output::RunResult run = models::run_header(prepared, seed);
  for (size_t i = 0; i < prepared.policies.size(); ++i) {
    if (cancel) throw Cancelled();
    run.policies.push_back(models::run_policy(prepared, i, seed, nullptr, trace.get()));
  }
  if (trace) trace->commit();
  return run;
}

py::dict run(const ScenarioHandle& s, std::optional<uint64_t> seed,
             const std::optional<std::string>& trace) {
  output::RunResult result;
  run_interruptibly([&](const std::atomic<bool>& cancel) {
    result = simulate(s, seed.value_or(s.prepared().scenario.seed), trace, cancel);
  });
  return py::dict("summary"_a = output::summary_json(result).dump(),
                  "timeseries"_a = timeseries_columns(result));
}

}  // namespace

constexpr const char* kRunDoc =
    "Runs every policy of `scenario` for `seed` (default: the scenario's) and returns\n"
    "{'summary': JSON text of summary.json, 'timeseries': {column: numpy array}}.\n"
    "trace: a path to write the timeline to (gzip when it ends in .gz), or None.\n"
    "Ctrl-C stops the run after the policy in progress and raises KeyboardInterrupt.";

void register_run(py::module_& m) {
  m.def("run", &run, kRunDoc, "scenario"_a, "seed"_a = py::none(), "trace"_a = py::none());
}

}  // namespace goodsim::python
