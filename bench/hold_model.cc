// The hold model: keep n events pending; repeatedly take the earliest and
// schedule one new event at now + Exp(1). The same model runs through the
// goodsim Simulation (handler dispatch, fingerprint, cancellable slots) and
// through a bare std::priority_queue of (time, seq) pairs, with the same RNG.
#include <fmt/format.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <queue>
#include <utility>
#include <vector>

#include "bench/bench.h"
#include "sim/core/distributions.h"
#include "sim/core/simulation.h"

namespace goodsim::bench {
namespace {

using Clock = std::chrono::steady_clock;

core::Duration exp_delay(core::Rng& rng) {
  return core::Duration::nanos(static_cast<int64_t>(core::exponential(rng, 1e9)) + 1);
}

double engine_rate(size_t pending, uint64_t events) {
  core::Simulation sim(1);
  core::Rng rng = sim.rng("hold");
  core::HandlerId h = 0;
  h = sim.add_handler("hold", [&](const core::Event&) {
    sim.schedule_in(exp_delay(rng), 0, h);
  });
  for (size_t i = 0; i < pending; ++i) sim.schedule_at(core::SimTime::zero() + exp_delay(rng), 0, h);
  // Run in chunks of simulated time until `events` have executed.
  const auto start = Clock::now();
  core::SimTime until = core::SimTime::zero();
  const core::Duration chunk = core::Duration::seconds(1);
  const uint64_t target = events;
  while (sim.events_executed() < target) {
    until += chunk;
    sim.run_until(until);
  }
  const double secs = std::chrono::duration<double>(Clock::now() - start).count();
  return static_cast<double>(sim.events_executed()) / secs;
}

double bare_rate(size_t pending, uint64_t events) {
  using Item = std::pair<int64_t, uint64_t>;
  std::priority_queue<Item, std::vector<Item>, std::greater<>> q;
  core::Rng rng = core::Rng::for_stream(1, "hold");
  uint64_t seq = 0;
  for (size_t i = 0; i < pending; ++i) q.push({exp_delay(rng).ns(), seq++});
  const auto start = Clock::now();
  uint64_t done = 0, sink = 0;
  while (done < events) {
    const Item top = q.top();
    q.pop();
    sink ^= top.second;
    q.push({top.first + exp_delay(rng).ns(), seq++});
    ++done;
  }
  const double secs = std::chrono::duration<double>(Clock::now() - start).count();
  if (sink == 42) fmt::print("");  // keep the loop observable
  return static_cast<double>(done) / secs;
}

}  // namespace

int hold_model() {
  fmt::print("hold model: events/s through goodsim's engine vs a bare std::priority_queue\n");
  fmt::print("{:>10} {:>14} {:>14} {:>7}\n", "pending", "engine ev/s", "bare ev/s", "ratio");
  int rc = 0;
  for (size_t pending : {size_t{1000}, size_t{100000}, size_t{1000000}}) {
    const uint64_t events = 5'000'000;
    const double engine = engine_rate(pending, events);
    const double bare = bare_rate(pending, events);
    const double ratio = engine / bare;
    fmt::print("{:>10} {:>14.4g} {:>14.4g} {:>7.2f}{}\n", pending, engine, bare, ratio,
               ratio < 0.5 ? "  BELOW TARGET 0.5" : "");
    if (ratio < 0.5) rc = 1;
  }
  return rc;
}

}  // namespace goodsim::bench
