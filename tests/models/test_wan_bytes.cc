// WAN bytes (comm_model.h, docs/metrics.md "WAN traffic") in closed form on
// tiny two-site runs: data-parallel steps x 2 B (S - 1), DiLoCo syncs x the
// ring's cross-site hops, decoupled DiLoCo rounds x the fragment pulled and
// broadcast across sites, nothing on one site (the WAN's price: test_cost_model.cc).
#include <catch2/catch.hpp>

#include <vector>

#include "models/policy/data_parallel.h"
#include "models/policy/decoupled_diloco.h"
#include "models/policy/decoupled_diloco_transfers.h"
#include "models/policy/diloco.h"
#include "tests/support/decoupled_config.h"
#include "tests/support/harness.h"

namespace goodsim::models::policy {
namespace {

using testing::Harness;

// Two sites of one 4-chip slice each, joined by a 100 Gbit/s link.
const std::vector<cluster::SiteShape> kTwoSites{{"a", 1}, {"b", 1}};
void link(Harness& h) { h.network().add_link(0, 1, 100e9, core::Duration::millis(5)); }

// Two learners of one slice (one per site), H = 10.
DilocoConfig two_learners() {
  DilocoConfig c;
  c.learners = 2;
  c.inner_steps = 10;
  c.elastic.min_slices = 1;
  return c;
}

TEST_CASE("ring all-reduce WAN bytes: 2 B (S - 1) over S sites, hops inside a site free",
          "[models][wan]") {
  CHECK(wan_bytes_of(ring_flows({0}, 1e9)) == 0);
  CHECK(wan_bytes_of(ring_flows({0, 1}, 1e9)) == Approx(2e9));
  CHECK(wan_bytes_of(ring_flows({0, 1, 2, 3}, 1e9)) == Approx(6e9));
  // Learners a, a, b: three hops of 2 B (2/3); a->a stays inside site a.
  CHECK(wan_bytes_of(ring_flows({0, 0, 1}, 1e9)) == Approx(2 * 2e9 * 2 / 3));
}

TEST_CASE("data_parallel across two sites: steps x 2 B", "[models][wan]") {
  Harness h(2, 4, testing::simple_job(), 0, kTwoSites);
  link(h);
  DataParallelConfig c;
  c.restart_time = core::Duration::seconds(30);
  DataParallel dp(c);
  const core::SimTime end = h.run(dp, 500);
  const uint64_t steps = dp.progress(end).steps;
  REQUIRE(steps > 100);
  // B = 2 GB of gradients; S = 2: each step's ring sends a->b and b->a 2 GB.
  CHECK(dp.wan_bytes(end) == Approx(static_cast<double>(steps) * 2 * 2e9).epsilon(1e-12));
}

TEST_CASE("data_parallel: steps rolled back by a failure still crossed the WAN",
          "[models][wan]") {
  Harness h(2, 4, testing::simple_job(), 0, kTwoSites);
  link(h);
  DataParallelConfig c;
  c.restart_time = core::Duration::seconds(30);
  c.checkpoint.interval = CheckpointConfig::Interval::kNone;
  DataParallel dp(c);
  h.outage(100.5, 50, 1);  // no checkpoint: the run restarts from step 0 at 180.5 s
  const core::SimTime end = h.run(dp, 500);
  const uint64_t after = dp.progress(end).steps;
  // Steps before the failure: 100 s at 1 s + the all-reduce (2 GB each way at
  // 100 Gbit/s: 0.16 s + 5 ms): 86 whole steps.
  const double before = 86;
  REQUIRE(after == 274);  // (500 - 180.5) / 1.165
  CHECK(dp.wan_bytes(end) == Approx((before + static_cast<double>(after)) * 4e9).epsilon(1e-12));
}

TEST_CASE("data_parallel on one site sends nothing over the WAN", "[models][wan]") {
  Harness h(2, 4, testing::simple_job());
  DataParallel dp(DataParallelConfig{});
  const core::SimTime end = h.run(dp, 500);
  REQUIRE(dp.progress(end).steps > 0);
  CHECK(dp.wan_bytes(end) == 0);
}

TEST_CASE("diloco with a learner per site: syncs x 2 B", "[models][wan]") {
  Harness h(2, 4, testing::simple_job(), 0, kTwoSites);
  link(h);
  DilocoConfig c = two_learners();
  Diloco d(c);
  const core::SimTime end = h.run(d, 1000);
  REQUIRE(d.stats().syncs > 50);
  // Each outer all-reduce of the 2 GB model: hops a->b and b->a of 2 GB (1 - 1/2).
  CHECK(d.wan_bytes(end) == Approx(static_cast<double>(d.stats().syncs) * 2 * 2e9).epsilon(1e-12));
}

TEST_CASE("diloco: a learner rejoining at the other site pulls the model across",
          "[models][wan]") {
  Harness h(2, 4, testing::simple_job(), 0, kTwoSites);
  link(h);
  DilocoConfig c = two_learners();
  c.elastic.restart_time = core::Duration::seconds(60);
  Diloco d(c);
  h.outage(200.5, 100, 1);  // learner 1 (site b) is down, then pulls from learner 0 (site a)
  const core::SimTime end = h.run(d, 1000);
  REQUIRE(d.stats().pulls == 1);
  CHECK(d.wan_bytes(end) ==
        Approx(static_cast<double>(d.stats().syncs) * 2 * 2e9 + 2e9).epsilon(1e-12));
}

TEST_CASE("decoupled_diloco across two sites: rounds x the fragment, pulled and broadcast",
          "[models][wan]") {
  Harness h(2, 4, testing::simple_job(), 0, kTwoSites);
  link(h);
  // 2 learners, H = P = 4, tau = 2, quorum 2: every round merges both learners;
  // the syncer sits at site a, so learner 1's fragment goes to a and the merged
  // fragment comes back: twice the fragment's bytes per round. Fast-forwarded
  // (no observer, no loss, no trace): the count must survive the skip.
  const DecoupledDilocoConfig c = testing::decoupled_config(2, 4, 4, 2, 2);
  const FragmentTransfers transfers(h.ctx(), c);
  for (uint32_t p = 1; p < 4; ++p) REQUIRE(transfers.bytes(p) == transfers.bytes(0));
  DecoupledDiloco d(c);
  const core::SimTime end = h.run(d, 2000);
  const SyncerStats& s = d.syncer_stats();
  REQUIRE(s.rounds > 1000);
  REQUIRE(s.contributions == 2 * s.rounds);
  CHECK(d.wan_bytes(end) ==
        Approx(static_cast<double>(s.rounds) * 2 * transfers.bytes(0)).epsilon(1e-12));
}

TEST_CASE("decoupled_diloco on one site sends nothing over the WAN", "[models][wan]") {
  Harness h(2, 4, testing::simple_job());
  DecoupledDiloco d(testing::decoupled_config(2, 4, 4, 2, 2));
  const core::SimTime end = h.run(d, 500);
  REQUIRE(d.syncer_stats().rounds > 100);
  CHECK(d.wan_bytes(end) == 0);
}

}  // namespace
}  // namespace goodsim::models::policy
