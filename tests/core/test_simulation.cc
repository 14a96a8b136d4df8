#include <catch2/catch.hpp>

#include <vector>

#include "sim/core/distributions.h"
#include "sim/core/simulation.h"

namespace goodsim::core {
namespace {

// A small self-scheduling model: ten chains, each event scheduling its
// successor after an exponential delay from a named stream; on the way it
// sometimes schedules a "victim" event (which does nothing) and sometimes
// cancels the latest one. The population stays at ten chains plus victims.
uint64_t chain_fingerprint(uint64_t seed, uint64_t* executed = nullptr) {
  Simulation sim(seed);
  Rng rng = sim.rng("chain");
  EventId victim;
  const HandlerId noop = sim.add_handler("victim", [](const Event&) {});
  HandlerId h = 0;
  h = sim.add_handler("chain", [&](const Event& e) {
    sim.schedule_in(Duration::from_seconds(exponential(rng, 1.0)), kBandPolicy, h, e.a + 1);
    const double u = rng.uniform01();
    if (u < 0.2) {
      sim.cancel(victim);
    } else if (u < 0.5) {
      victim = sim.schedule_in(Duration::from_seconds(exponential(rng, 2.0)), kBandFailure, noop, e.a);
    }
  });
  for (uint64_t i = 0; i < 10; ++i) sim.schedule_at(SimTime::zero(), kBandPolicy, h, i * 1000);
  sim.run_until(SimTime::zero() + Duration::seconds(500));
  if (executed != nullptr) *executed = sim.events_executed();
  return sim.fingerprint();
}

TEST_CASE("same seed gives the same fingerprint, another seed differs", "[core][sim]") {
  uint64_t n1 = 0, n2 = 0;
  CHECK(chain_fingerprint(42, &n1) == chain_fingerprint(42, &n2));
  CHECK(n1 == n2);
  CHECK(n1 > 5000);
  CHECK(chain_fingerprint(42) != chain_fingerprint(43));
}

TEST_CASE("run_until executes events up to and including the end, in order", "[core][sim]") {
  Simulation sim(1);
  std::vector<int64_t> seen;
  const HandlerId h = sim.add_handler("rec", [&](const Event& e) {
    CHECK(sim.now() == e.time);
    seen.push_back(e.time.ns());
  });
  for (int64_t t : {30, 10, 20, 40}) sim.schedule_at(SimTime::from_ns(t), 0, h);
  sim.run_until(SimTime::from_ns(30));
  CHECK(seen == std::vector<int64_t>{10, 20, 30});
  CHECK(sim.now() == SimTime::from_ns(30));
  CHECK(sim.pending() == 1);
  sim.run_until(SimTime::from_ns(100));
  CHECK(seen.size() == 4);
  CHECK(sim.now() == SimTime::from_ns(100));
}

TEST_CASE("request_stop halts the loop after the current event", "[core][sim]") {
  Simulation sim(1);
  int count = 0;
  const HandlerId h = sim.add_handler("stopper", [&](const Event&) {
    if (++count == 2) sim.request_stop();
  });
  for (int64_t t = 1; t <= 5; ++t) sim.schedule_at(SimTime::from_ns(t), 0, h);
  sim.run_until(SimTime::from_ns(10));
  CHECK(count == 2);
  CHECK(sim.now() == SimTime::from_ns(2));
}

TEST_CASE("named streams do not depend on creation order", "[core][sim]") {
  Simulation a(7), b(7);
  Rng a1 = a.rng("failures"), a2 = a.rng("stragglers");
  Rng b2 = b.rng("stragglers"), b1 = b.rng("failures");
  CHECK(a1.next_u64() == b1.next_u64());
  CHECK(a2.next_u64() == b2.next_u64());
}

TEST_CASE("Duration and SimTime arithmetic", "[core][time]") {
  CHECK(Duration::hours(1) == Duration::seconds(3600));
  CHECK(Duration::from_seconds(0.25) == Duration::millis(250));
  CHECK(Duration::from_seconds(1e30) == Duration::max());
  CHECK((SimTime::max() + Duration::seconds(1)) == SimTime::max());
  CHECK((SimTime::zero() + Duration::days(1)).seconds_f() == Approx(86400.0));
}

}  // namespace
}  // namespace goodsim::core
