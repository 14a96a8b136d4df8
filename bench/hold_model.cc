// The hold model on Google Benchmark: keep n events pending; repeatedly take
// the earliest and schedule one new event at now + Exp(1 s). The same model
// runs through the goodsim Simulation (handler dispatch, fingerprint,
// cancellable events) and through a bare std::priority_queue of (time, seq)
// pairs, with the same RNG stream, in the same process. Each benchmark runs a
// fixed number of events per repetition (set-up of the pending set untimed);
// the summary gives, per size, events/s (CPU time) of both and their ratio
// engine / bare (above 1: the engine is faster), the min and the median over
// the repetitions; the target is a median ratio >= 1.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <queue>
#include <string>
#include <utility>
#include <vector>

#include "bench/bench.h"
#include "sim/core/distributions.h"
#include "sim/core/simulation.h"

namespace goodsim::bench {
namespace {

constexpr int64_t kEventsPerIteration = 10'000;
constexpr int64_t kIterations = 100;  // 1M events a repetition
constexpr int kRepetitions = 3;
constexpr double kTargetRatio = 1.0;  // the engine at least as fast as the bare heap

core::Duration exp_delay(core::Rng& rng) {
  return core::Duration::nanos(static_cast<int64_t>(core::exponential(rng, 1e9)) + 1);
}

void engine_hold(benchmark::State& state) {
  const auto pending = static_cast<size_t>(state.range(0));
  core::Simulation sim(1);
  core::Rng rng = sim.rng("hold");
  core::HandlerId h = 0;
  h = sim.add_handler("hold", [&](const core::Event&) { sim.schedule_in(exp_delay(rng), 0, h); });
  for (size_t i = 0; i < pending; ++i) sim.schedule_at(core::SimTime::zero() + exp_delay(rng), 0, h);
  // The pending set fires at `pending` events per simulated second, so this
  // much simulated time holds about kEventsPerIteration events.
  const auto chunk = core::Duration::nanos(
      std::max<int64_t>(1, static_cast<int64_t>(1e9 * kEventsPerIteration / static_cast<double>(pending))));
  core::SimTime until = core::SimTime::zero();
  for (auto _ : state) {
    until += chunk;
    sim.run_until(until);
  }
  state.SetItemsProcessed(static_cast<int64_t>(sim.events_executed()));
  benchmark::DoNotOptimize(sim.fingerprint());
}

void bare_hold(benchmark::State& state) {
  using Item = std::pair<int64_t, uint64_t>;
  std::priority_queue<Item, std::vector<Item>, std::greater<>> q;
  core::Rng rng = core::Rng::for_stream(1, "hold");
  uint64_t seq = 0;
  for (int64_t i = 0; i < state.range(0); ++i) q.push({exp_delay(rng).ns(), seq++});
  uint64_t sink = 0;
  for (auto _ : state) {
    for (int64_t i = 0; i < kEventsPerIteration; ++i) {
      const Item top = q.top();
      q.pop();
      sink ^= top.second;
      q.push({top.first + exp_delay(rng).ns(), seq++});
    }
  }
  state.SetItemsProcessed(state.iterations() * kEventsPerIteration);
  benchmark::DoNotOptimize(sink);
}

// Keeps items/s (CPU time) of every repetition, by benchmark name.
class Collector : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs) {
      if (r.run_type != Run::RT_Iteration) continue;
      const auto it = r.counters.find("items_per_second");
      if (it != r.counters.end()) rates[r.run_name.function_name + "/" + r.run_name.args].push_back(it->second);
    }
    ConsoleReporter::ReportRuns(runs);
  }
  std::map<std::string, std::vector<double>> rates;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int hold_model(Figures& figures) {
  const std::vector<int64_t> sizes = {1'000, 100'000, 1'000'000, 10'000'000};
  for (const auto& [name, fn] : {std::pair{"engine", &engine_hold}, std::pair{"bare", &bare_hold}}) {
    for (int64_t n : sizes) {
      benchmark::RegisterBenchmark(fmt::format("hold/{}", name).c_str(), fn)
          ->Arg(n)
          ->Iterations(kIterations)
          ->Repetitions(kRepetitions)
          ->Unit(benchmark::kMillisecond);
    }
  }
  Collector collector;
  benchmark::RunSpecifiedBenchmarks(&collector);
  benchmark::ClearRegisteredBenchmarks();
  fmt::print("\nhold model: events/s (CPU time) through goodsim's engine vs a bare "
             "std::priority_queue, {} repetitions of {} events\n",
             kRepetitions, kEventsPerIteration * kIterations);
  fmt::print("{:>10} {:>13} {:>13} {:>13} {:>13} {:>10} {:>10}\n", "pending", "engine min",
             "engine med", "bare min", "bare med", "ratio min", "ratio med");
  int rc = 0;
  for (int64_t n : sizes) {
    const std::vector<double>& e = collector.rates[fmt::format("hold/engine/{}", n)];
    const std::vector<double>& b = collector.rates[fmt::format("hold/bare/{}", n)];
    if (e.empty() || b.empty()) continue;
    const double emin = *std::min_element(e.begin(), e.end()), emed = median(e);
    const double bmin = *std::min_element(b.begin(), b.end()), bmed = median(b);
    const double rmin = emin / bmin, rmed = emed / bmed;
    fmt::print("{:>10} {:>13.4g} {:>13.4g} {:>13.4g} {:>13.4g} {:>10.2f} {:>10.2f}  target >= {:.1f}{}\n",
               n, emin, emed, bmin, bmed, rmin, rmed, kTargetRatio,
               rmed < kTargetRatio ? " (below)" : "");
    for (const auto& [name, value] : {std::pair{"engine_events_per_s_median", emed},
                                      std::pair{"bare_events_per_s_median", bmed}}) {
      figures.push_back({fmt::format("{}/{}", name, n), value, "events/s", std::nullopt, true});
    }
    figures.push_back({fmt::format("ratio_min/{}", n), rmin, "engine/bare", std::nullopt, true});
    figures.push_back({fmt::format("ratio_median/{}", n), rmed, "engine/bare", kTargetRatio, true});
    if (rmed < kTargetRatio) rc = 1;
  }
  return rc;
}

}  // namespace goodsim::bench
