// The parts policies are built from: step clock, communication costs,
// checkpoint intervals, slice pool.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <vector>

#include "models/policy/checkpoint_config.h"
#include "models/policy/comm_model.h"
#include "models/policy/slice_pool.h"
#include "models/policy/step_clock.h"

namespace goodsim::models::policy {
namespace {

core::SimTime at(double s) { return core::SimTime::zero() + core::Duration::from_seconds(s); }

TEST_CASE("step clock carries the step in flight across pace changes", "[models][parts]") {
  StepClock c;
  c.start(at(0), core::Duration::seconds(2));
  CHECK(c.steps(at(5)) == 2);               // 2.5 steps
  c.set_step(at(5), core::Duration::seconds(1));
  CHECK(c.steps(at(5.5)) == 3);             // the half step finishes at the new pace
  CHECK(*c.time_of_step(at(5), 10) == at(12.5));
  CHECK(c.stop(at(6.25)) == Approx(0.75));  // 3.75 steps since 5 s: 2 + 0.5 + 1.25
  CHECK(c.steps(at(100)) == 3);
  c.rollback_to(1);
  CHECK(c.steps(at(100)) == 1);
  CHECK_FALSE(c.time_of_step(at(100), 5).has_value());  // not running
}

TEST_CASE("step clock: counts and step times are exact inverses, and repeat with the period",
          "[models][parts]") {
  // Random paces (1 ns to 10 s, odd values included), changed at random
  // times mid-step: every step's predicted time counts it as done, a
  // nanosecond earlier does not, and step times advance by exactly one step
  // time (what a fast-forward that shifts whole periods relies on). Checked
  // for the next 20 steps and at steps 2^i on, up to about a year. (A clock
  // keeping the step in flight as a floating-point fraction fails this about
  // 6,600 times.)
  std::mt19937_64 rng(11);
  std::uniform_int_distribution<int64_t> pace(1, 10'000'000'000);
  std::uniform_int_distribution<int64_t> gap(1, 50'000'000'000);
  StepClock c;
  core::SimTime now = at(0);
  c.start(now, core::Duration::nanos(pace(rng)));
  size_t wrong = 0;
  for (int change = 0; change < 2000; ++change) {
    now = now + core::Duration::nanos(gap(rng));
    c.set_step(now, core::Duration::nanos(pace(rng)));
    const uint64_t first = c.steps(now) + 1;
    const core::SimTime t0 = *c.time_of_pending_step(first);
    for (uint64_t i = 0; i < 60; ++i) {
      const uint64_t k = i < 20 ? i : (uint64_t{1} << (i - 20)) + i;
      if (k > (uint64_t{1} << 55) / static_cast<uint64_t>(c.step().ns())) break;
      const core::SimTime t = *c.time_of_pending_step(first + k);
      const bool ok = t > now && c.steps(t) == first + k &&
                      c.steps(t - core::Duration::nanos(1)) == first + k - 1 &&
                      t - t0 == c.step() * static_cast<int64_t>(k);
      if (!ok && wrong++ == 0) FAIL_CHECK("change " << change << ", step " << first + k);
    }
  }
  CHECK(wrong == 0);
}

TEST_CASE("step clock: a stalled pace saturates instead of wrapping", "[models][parts]") {
  StepClock c;
  c.start(at(10), core::Duration::max());
  CHECK(c.steps(at(1e9)) == 0);
  CHECK(*c.time_of_pending_step(1) == core::SimTime::max());
  CHECK(*c.time_of_pending_step(2) == core::SimTime::max());
  // The stall ends: almost none of the step was done, so almost a whole new
  // step is left.
  c.set_step(at(20), core::Duration::seconds(1));
  CHECK(*c.time_of_pending_step(1) > at(20.99));
  CHECK(*c.time_of_pending_step(1) <= at(21));
  CHECK(c.steps(at(30)) == 10);
}

TEST_CASE("ring all-reduce and WAN transfers follow the formulas", "[models][parts]") {
  // 2 B (1 - 1/R) / W: 1 GB among 4 over 8 Gbps = 2 * 8e9 * 0.75 / 8e9 = 1.5 s.
  CHECK(ring_allreduce_time(1e9, 4, 8e9) == core::Duration::millis(1500));
  CHECK(ring_allreduce_time(1e9, 1, 8e9) == core::Duration::zero());
  cluster::Network net;
  const auto a = net.add_site("a"), b = net.add_site("b"), c = net.add_site("c");
  net.add_link(a, b, 8e9, core::Duration::millis(10));
  net.add_link(b, c, 8e9, core::Duration::millis(10));
  // Two flows share link a-b: each gets 4 Gbps. 1 GB: 2 s + 10 ms.
  const auto t = concurrent_transfer_times(net, {{a, b, 1e9}, {a, c, 1e9}});
  CHECK(*t[0] == core::Duration::millis(2010));
  CHECK(*t[1] == core::Duration::millis(2020));
  // Ring over a, b: each sends 2 * 1 GB * 1/2 = 1 GB, one per direction of the
  // full-duplex link: 8 Gbps each: 1 s + 10 ms.
  CHECK(*cross_site_allreduce_time(net, {a, b}, 1e9) == core::Duration::millis(1010));
  // Opposite directions do not share: a->b and b->a each at 8 Gbps.
  const auto both = concurrent_transfer_times(net, {{a, b, 1e9}, {b, a, 1e9}});
  CHECK(*both[0] == core::Duration::millis(1010));
  CHECK(*both[1] == core::Duration::millis(1010));
  net.set_site_partitioned(c, true);
  CHECK_FALSE(cross_site_allreduce_time(net, {a, c}, 1e9).has_value());
}

TEST_CASE("transfers over links of a few bits/s are capped at ten years", "[models][parts]") {
  // Found by fuzzing: a 3 bps WAN link made latency + transfer overflow int64 nanoseconds.
  cluster::Network net;
  const auto a = net.add_site("a"), b = net.add_site("b");
  net.add_link(a, b, 3, core::Duration::millis(70));
  const core::Duration ten_years = core::Duration::days(3650);
  CHECK(*cross_site_allreduce_time(net, {a, b}, 8e9) == ten_years + core::Duration::millis(70));
  CHECK(ring_allreduce_time(8e9, 4, 3) == ten_years);
}

TEST_CASE("young and daly checkpoint intervals", "[models][parts]") {
  const auto delta = core::Duration::seconds(120), m = core::Duration::hours(1);
  CHECK(young_interval(delta, m).seconds_f() == Approx(std::sqrt(2.0 * 120 * 3600)));
  // Daly: sqrt(2 d M) [1 + sqrt(x)/3 + x/9] - d with x = d / 2M.
  const double x = 120.0 / 7200.0;
  const double daly = std::sqrt(2.0 * 120 * 3600) * (1 + std::sqrt(x) / 3 + x / 9) - 120;
  CHECK(daly_interval(delta, m).seconds_f() == Approx(daly));
  CHECK(daly_interval(core::Duration::hours(3), m) == m);  // delta >= 2M
}

TEST_CASE("slice pool promotes the lowest up spare", "[models][parts]") {
  const cluster::Layout layout(1, 1, {{"a", 6}}, 2);
  cluster::ClusterState state(layout);
  SlicePool pool(4, 2, state);
  state.fail(cluster::Domain::kSlice, 4, core::SimTime::zero());
  pool.on_flip(4, true);  // a spare: not counted
  state.fail(cluster::Domain::kSlice, 1, core::SimTime::zero());
  pool.on_flip(1, true);
  CHECK(pool.down_members() == 1);
  CHECK(pool.member_ranges() == std::vector<SlicePool::Range>{{0, 4}});
  CHECK(pool.replace(1, state) == std::optional<cluster::SliceId>(5));
  CHECK(pool.is_member(5));
  CHECK_FALSE(pool.is_member(1));
  CHECK(pool.down_members() == 0);
  CHECK(pool.up_member_chips(1) == 4);
  CHECK(pool.member_ranges() == std::vector<SlicePool::Range>{{0, 1}, {2, 4}, {5, 6}});
  CHECK_FALSE(pool.replace(0, state).has_value());  // no up spare left
}

}  // namespace
}  // namespace goodsim::models::policy
