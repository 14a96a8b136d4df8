#include <catch2/catch.hpp>

#include "models/policy/chip_time_ledger.h"
#include "models/policy/outage_tracker.h"

namespace goodsim::models::policy {
namespace {

core::SimTime at_s(int64_t s) { return core::SimTime::zero() + core::Duration::seconds(s); }

TEST_CASE("ledger integrates piecewise splits exactly", "[models][ledger]") {
  ChipTimeLedger l(10);
  ChipTimeLedger::Split s{};
  s[static_cast<size_t>(Category::kProductive)] = chip_units(10);
  l.set_split(at_s(0), s);
  s = {};
  s[static_cast<size_t>(Category::kDown)] = chip_units(1);
  s[static_cast<size_t>(Category::kReconfigure)] = chip_units(9);
  l.set_split(at_s(100), s);
  l.advance(at_s(130));
  CHECK(l.chip_seconds(Category::kProductive) == 1000.0);
  CHECK(l.chip_seconds(Category::kDown) == 30.0);
  CHECK(l.chip_seconds(Category::kReconfigure) == 270.0);
  l.move(Category::kProductive, Category::kLostWork,
         ChipNanos{50} * core::kNanosPerSecond * kChipScale);
  CHECK(l.chip_seconds(Category::kLostWork) == 50.0);
  CHECK(l.chip_seconds(Category::kProductive) == 950.0);
  l.check_invariant();  // aborts if the sum is off
}

TEST_CASE("a running group charges each chip its own step time", "[models][ledger]") {
  // Two slices of 100 chip units, base 10 s, slowdowns 1.0 and 1.5, 1 s of
  // communication: a step of 16 s. Per step the fast slice computes 10 s and
  // waits 5 s for the slow one; the slow slice computes 15 s; both wait 1 s.
  const core::Duration base = core::Duration::seconds(10);
  const core::Duration step = core::Duration::seconds(16);
  const RunningSplit r = RunningSplit::of(100, 2, 2.5, 1.5, base, step);
  CHECK(r.productive == 156);     // floor(100 x (10 + 15) / 16)
  CHECK(r.straggler_wait == 31);  // floor(200 x 15 / 16) - 156 = 187 - 156
  CHECK(r.sync_wait == 13);       // 200 - 187
  // Equal slowdowns: everyone computes until the communication.
  const RunningSplit even = RunningSplit::of(100, 2, 3.0, 1.5, base, step);
  CHECK(even.productive == 187);
  CHECK(even.straggler_wait == 0);
  CHECK(even.sync_wait == 13);
}

TEST_CASE("ledger is exact at a million chips over ten years", "[models][ledger]") {
  ChipTimeLedger l(1'500'000);
  ChipTimeLedger::Split s{};
  s[static_cast<size_t>(Category::kProductive)] = chip_units(1'499'999);
  s[static_cast<size_t>(Category::kDown)] = chip_units(1);
  l.set_split(core::SimTime::zero(), s);
  l.advance(core::SimTime::zero() + core::Duration::days(3650) + core::Duration::nanos(7));
  l.check_invariant();
  CHECK(l.total(Category::kDown) == ChipNanos{core::Duration::days(3650).ns() + 7} * kChipScale);
}

TEST_CASE("outage tracker counts outages, total and longest", "[models][outage]") {
  OutageTracker o;
  o.start(true, at_s(0));
  o.set_training(false, at_s(10));
  o.set_training(false, at_s(12));  // repeated: no new outage
  o.set_training(true, at_s(15));
  o.set_training(false, at_s(40));
  CHECK(o.downtime_until(at_s(50)) == core::Duration::seconds(15));
  o.finish(at_s(60));
  CHECK(o.outages() == 2);
  CHECK(o.downtime() == core::Duration::seconds(25));
  CHECK(o.longest() == core::Duration::seconds(20));
}

TEST_CASE("a run that starts down counts one outage from t=0", "[models][outage]") {
  OutageTracker o;
  o.start(false, at_s(0));
  o.set_training(true, at_s(7));
  o.finish(at_s(20));
  CHECK(o.outages() == 1);
  CHECK(o.downtime() == core::Duration::seconds(7));
}

}  // namespace
}  // namespace goodsim::models::policy
