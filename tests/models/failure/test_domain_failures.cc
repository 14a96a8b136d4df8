// domain_failures and planned_maintenance: exactly the domain goes down and
// comes back, renewal rates, scheduled window times, rolling and random order.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <set>
#include <vector>

#include "models/failure/domain_failures.h"
#include "models/failure/planned_maintenance.h"
#include "sim/core/distributions.h"
#include "tests/support/injector_harness.h"

namespace goodsim::models::failure {
namespace {

using Harness = testing::InjectorHarness;

// Checks after every change that the chips down are exactly those of the
// units this test's injector holds down (no other source is running).
class DomainChecker : public cluster::ClusterObserver {
 public:
  DomainChecker(const cluster::ClusterState& state, cluster::Domain d) : state_(state), d_(d) {}
  void on_cluster_change(const cluster::ClusterChange& c) override {
    CHECK(c.domain == d_);
    if (c.failed) {
      CHECK(down_.insert(c.id).second);  // a unit never fails twice while down
    } else {
      CHECK(down_.erase(c.id) == 1);     // repairs return a unit that was down
    }
    const cluster::Layout& l = state_.layout();
    uint64_t expected_down = 0;
    for (uint32_t u : down_) expected_down += l.chips_in(d_, u);
    CHECK(state_.down_chips() == expected_down);
    const uint64_t first = l.first_chip(d_, c.id), n = l.chips_in(d_, c.id);
    for (uint64_t chip = first; chip < first + n; ++chip) {
      CHECK(state_.chip_up(static_cast<cluster::ChipId>(chip)) == !c.failed);
    }
    ++changes;
  }
  const std::set<uint32_t>& down() const { return down_; }
  uint64_t changes = 0;

 private:
  const cluster::ClusterState& state_;
  cluster::Domain d_;
  std::set<uint32_t> down_;
};

DomainFailuresConfig domain_config(cluster::Domain d, double mtbf_s, core::Distribution repair) {
  DomainFailuresConfig c;
  c.domain = d;
  c.mtbf = core::Duration::from_seconds(mtbf_s);
  c.repair_time = std::move(repair);
  return c;
}

TEST_CASE("domain failures take down exactly their domain and repairs return it",
          "[models][failure]") {
  for (cluster::Domain d : {cluster::Domain::kHost, cluster::Domain::kSlice, cluster::Domain::kSite}) {
    INFO(cluster::domain_name(d));
    Harness h(4, 4, {{"a", 3}, {"b", 5}}, 3);
    DomainChecker checker(h.state, d);
    h.state.add_observer(&checker);
    DomainFailures inj(domain_config(d, 1000, core::Distribution::exponential(100)), "failures.d");
    h.run(inj, 20000);
    CHECK(inj.failures() > 20);
    CHECK(checker.changes == 2 * inj.failures() - checker.down().size());
  }
}

TEST_CASE("domain failure count matches renewal theory", "[models][failure][stat]") {
  // Each host alternates Exp(mtbf) up and a fixed repair r: failures are a
  // delayed renewal process, E[N] = (T - mtbf) / m + E[X^2] / (2 m^2) and
  // Var[N] = T mtbf^2 / m^3 per host, m = mtbf + r.
  Harness h(4, 8, {{"a", 64}}, 5);  // 512 hosts
  const double mtbf = 1000, repair = 300, horizon = 30000;
  DomainFailures inj(domain_config(cluster::Domain::kHost, mtbf, core::Distribution::fixed(repair)),
                     "failures.hosts");
  h.run(inj, horizon);
  const double hosts = 512, m = mtbf + repair, ex2 = mtbf * mtbf + m * m;
  const double expected = hosts * ((horizon - mtbf) / m + ex2 / (2 * m * m));
  const double sd = std::sqrt(hosts * horizon * mtbf * mtbf / (m * m * m));
  INFO(inj.failures() << " host failures, expected " << expected << " +- " << sd);
  CHECK(std::abs(static_cast<double>(inj.failures()) - expected) < 3 * sd);
}

PlannedMaintenanceConfig maintenance(cluster::Domain d, double interval_s, double duration_s,
                                     uint64_t per_window) {
  PlannedMaintenanceConfig c;
  c.domain = d;
  c.interval = core::Duration::from_seconds(interval_s);
  c.duration = core::Distribution::fixed(duration_s);
  c.units_per_window = per_window;
  return c;
}

TEST_CASE("planned maintenance: rolling windows at the scheduled times", "[models][failure]") {
  Harness h(4, 1, {{"a", 5}}, 1, true);  // 5 hosts
  PlannedMaintenanceConfig c = maintenance(cluster::Domain::kHost, 3600, 600, 2);
  c.start = core::Duration::seconds(1800);
  PlannedMaintenance inj(c, "failures.pm");
  h.run(inj, 5 * 3600);  // windows at 0.5h, 1.5h, ..., 4.5h
  CHECK(inj.windows() == 5);
  CHECK(inj.failures() == 10);
  const cluster::CauseId planned = h.state.intern_cause("planned");
  std::vector<testing::Change> fails, repairs;
  for (const auto& ch : h.recorder.changes) (ch.failed ? fails : repairs).push_back(ch);
  REQUIRE(fails.size() == 10);
  REQUIRE(repairs.size() == 10);
  for (size_t i = 0; i < fails.size(); ++i) {
    CHECK(fails[i].domain == cluster::Domain::kHost);
    CHECK(fails[i].t == Approx(1800.0 + 3600.0 * static_cast<double>(i / 2)));
    CHECK(fails[i].id == i % 5);  // rolling through the 5 hosts, 2 per window
    CHECK(fails[i].cause == planned);
    CHECK(repairs[i].id == fails[i].id);
    CHECK(repairs[i].t == Approx(fails[i].t + 600));
  }
}

TEST_CASE("planned maintenance: default start, jitter bounds and end", "[models][failure]") {
  Harness h(1, 1, {{"a", 10}}, 2, true);
  PlannedMaintenanceConfig c = maintenance(cluster::Domain::kSlice, 1000, 10, 1);
  c.jitter = core::Duration::seconds(200);
  c.end = core::Duration::seconds(20500);
  PlannedMaintenance inj(c, "failures.pm");
  h.run(inj, 50000);
  CHECK(inj.windows() == 20);  // windows at 1000, ..., 20000 (+ jitter); 21000 is after end
  size_t i = 0;
  std::set<int64_t> offsets;
  for (const auto& ch : h.recorder.changes) {
    if (!ch.failed) continue;
    const double base = 1000.0 * static_cast<double>(++i);
    CHECK(ch.t >= base);
    CHECK(ch.t < base + 200);
    offsets.insert(std::llround(ch.t - base));
  }
  CHECK(offsets.size() > 10);  // jitter really varies
}

TEST_CASE("planned maintenance: random order picks distinct units uniformly",
          "[models][failure][stat]") {
  Harness h(4, 1, {{"a", 20}}, 4, true);  // 20 hosts
  PlannedMaintenanceConfig c = maintenance(cluster::Domain::kHost, 100, 50, 5);
  c.random_order = true;
  PlannedMaintenance inj(c, "failures.pm");
  h.run(inj, 100 * 2000);
  REQUIRE(inj.windows() == 2000);
  std::map<double, std::set<uint32_t>> by_window;
  std::vector<double> per_host(20, 0);
  for (const auto& ch : h.recorder.changes) {
    if (!ch.failed) continue;
    CHECK(by_window[ch.t].insert(ch.id).second);  // distinct within a window
    per_host[ch.id] += 1;
  }
  CHECK(by_window.size() == 2000);
  // Each host is picked with probability 5/20 per window: chi-square, 19 dof,
  // the 0.001 critical value is 43.8.
  double chi2 = 0;
  const double expected = 2000.0 * 5 / 20;
  for (double n : per_host) chi2 += (n - expected) * (n - expected) / expected;
  // Draws without replacement within a window make the counts slightly less
  // variable than multinomial, so the statistic is, if anything, smaller.
  INFO("chi2 = " << chi2);
  CHECK(chi2 < 43.8);
}

}  // namespace
}  // namespace goodsim::models::failure
