// Recovery semantics: what a failure during a restart or a resize pause does,
// upscale batching, warm standbys, against hand-computed scripted cases and
// renewal closed forms.
#include <catch2/catch.hpp>

#include <cmath>

#include "models/policy/data_parallel.h"
#include "models/policy/elastic_data_parallel.h"
#include "models/policy/outage_tracker.h"
#include "tests/support/harness.h"
#include "tests/support/scenarios.h"

namespace goodsim::models::policy {
namespace {

using testing::Harness;
using DuringRestart = DataParallelConfig::DuringRestart;
using DuringPause = ElasticSpec::DuringPause;

core::SimTime at(double s) { return core::SimTime::zero() + core::Duration::from_seconds(s); }

DataParallelConfig dp(DuringRestart rule) {
  DataParallelConfig c;
  c.restart_time = core::Duration::seconds(60);
  c.swap_time = core::Duration::seconds(10);
  c.during_restart = rule;
  c.restart_extension = core::Duration::seconds(15);
  c.host_selection_time = core::Duration::seconds(100);
  return c;
}

// 4 slices, no spares. Slice 0 down [100.5, 150.5): restart [150.5, 210.5).
// Slice 1 fails at 170 during the restart and is back at 190.
double dp_downtime(DuringRestart rule) {
  Harness h(4, 4, testing::simple_job());
  h.outage(100.5, 50, 0);
  h.outage(170, 20, 1);
  DataParallel p(dp(rule));
  h.run(p, 1000);
  CHECK(p.outages().outages() == 1);
  return p.outages().downtime().seconds_f();
}

TEST_CASE("data_parallel: a failure during the restart, three rules", "[models][recovery]") {
  // absorb: the restart ends at 210.5 as planned; slice 1 is back by then.
  CHECK(dp_downtime(DuringRestart::kAbsorb) == Approx(110));
  // extend: the restart ends 15 s later, at 225.5.
  CHECK(dp_downtime(DuringRestart::kExtend) == Approx(125));
  // restart: back to waiting at 170; slice 1 is up at 190; restart to 250.
  CHECK(dp_downtime(DuringRestart::kRestart) == Approx(149.5));
}

TEST_CASE("data_parallel absorb: a member still down when the restart ends is waited for",
          "[models][recovery]") {
  // Slice 1 fails at 170 for 100 s (back at 270): the restart paid at 210.5
  // is not paid again; the job resumes at 270.
  Harness h(4, 4, testing::simple_job());
  h.outage(100.5, 50, 0);
  h.outage(170, 100, 1);
  DataParallel p(dp(DuringRestart::kAbsorb));
  h.run(p, 1000);
  CHECK(p.outages().downtime().seconds_f() == Approx(169.5));
  // Restart [150.5, 210.5) on 12 or 16 up member chips: 16 x 19.5 + 12 x 40.5.
  CHECK(testing::seconds(p.ledger(), Category::kReconfigure) == Approx(16 * 19.5 + 12 * 40.5));
}

TEST_CASE("data_parallel standbys: warm swaps, then host selection", "[models][recovery]") {
  // 4 members + 2 spares, 1 warm standby. Slice 0 fails at 100.5 (for 1000 s):
  // standby swap 10 s + restart 60 s -> down 70 s. Slice 1 fails at 300.5: no
  // warm standby left, host selection 100 s + restart 60 s -> down 160 s.
  Harness h(6, 4, testing::simple_job(), 2);
  h.outage(100.5, 1000, 0);
  h.outage(300.5, 1000, 1);
  DataParallelConfig c = dp(DuringRestart::kAbsorb);
  c.standbys = 1;
  DataParallel p(c);
  h.run(p, 1000);
  CHECK(p.outages().outages() == 2);
  CHECK(p.outages().downtime().seconds_f() == Approx(230));
  // Swaps: 10 s and 100 s on the 16 member chips (the swapped-in spare included).
  CHECK(testing::seconds(p.ledger(), Category::kReconfigure) == Approx(16 * (10 + 100 + 120)));
}

TEST_CASE("data_parallel swap_overlaps_restart: max(swap, restart)", "[models][recovery]") {
  Harness h(6, 4, testing::simple_job(), 2);
  h.outage(100.5, 1000, 0);
  DataParallelConfig c = dp(DuringRestart::kAbsorb);
  c.swap_time = core::Duration::seconds(30);
  c.swap_overlaps_restart = true;
  DataParallel p(c);
  h.run(p, 1000);
  CHECK(p.outages().downtime().seconds_f() == Approx(60));
}

ElasticDataParallelConfig elastic(DuringPause rule) {
  ElasticDataParallelConfig c;
  c.elastic.downscale_time = core::Duration::seconds(30);
  c.elastic.upscale_time = core::Duration::seconds(30);
  c.elastic.restart_time = core::Duration::minutes(5);
  c.elastic.during_pause = rule;
  c.elastic.pause_extension = core::Duration::seconds(7);
  c.checkpoint_interval = core::Duration::minutes(30);
  return c;
}

// 4 slices; slice 1 down at 100.5 for 20 s: it returns during the downscale.
double elastic_downtime(const ElasticDataParallelConfig& c) {
  Harness h(4, 4, testing::simple_job());
  h.outage(100.5, 20, 1);
  ElasticDataParallel p(c);
  h.run(p, 1000);
  return p.outages().downtime().seconds_f();
}

TEST_CASE("elastic: a change during a pause, three rules", "[models][recovery]") {
  CHECK(elastic_downtime(elastic(DuringPause::kCoalesce)) == Approx(30));
  CHECK(elastic_downtime(elastic(DuringPause::kExtend)) == Approx(37));
  // restart: the upscale at 120.5 begins the pause again, to 150.5.
  CHECK(elastic_downtime(elastic(DuringPause::kRestart)) == Approx(50));
  // Per-slice cost 5 s: 30 + 5 for the leaving slice, + 5 when it returns.
  ElasticDataParallelConfig c = elastic(DuringPause::kCoalesce);
  c.elastic.resize_per_slice = core::Duration::seconds(5);
  CHECK(elastic_downtime(c) == Approx(40));
}

TEST_CASE("elastic upscale batching: window and batch size", "[models][recovery]") {
  SECTION("window: the slice back at 120.5 rejoins at t = 600") {
    ElasticDataParallelConfig c = elastic(DuringPause::kCoalesce);
    c.elastic.upscale_every = core::Duration::seconds(600);
    Harness h(4, 4, testing::simple_job());
    h.outage(100.5, 20, 1);
    ElasticDataParallel p(c);
    h.run(p, 1000);
    CHECK(p.outages().outages() == 2);
    CHECK(p.outages().downtime().seconds_f() == Approx(60));
    // Slice 1 waits idle [120.5, 600) (the downscale pause covers [120.5, 130.5)
    // for the 12 others): 4 chips x 479.5 s idle.
    CHECK(testing::seconds(p.ledger(), Category::kIdle) == Approx(4 * 479.5));
  }
  SECTION("batch of 2: two returns, one upscale") {
    ElasticDataParallelConfig c = elastic(DuringPause::kCoalesce);
    c.elastic.upscale_batch = 2;
    Harness h(4, 4, testing::simple_job());
    h.outage(100.5, 100, 1);  // back at 200.5: waits
    h.outage(300.5, 100, 2);  // back at 400.5: both rejoin
    ElasticDataParallel p(c);
    h.run(p, 1000);
    // Downscales at 100.5 and 300.5 (30 s each), one upscale at 400.5.
    CHECK(p.outages().outages() == 3);
    CHECK(p.outages().downtime().seconds_f() == Approx(90));
  }
}

TEST_CASE("outage tracker: checkpoint pauses and zero-length stops", "[models][recovery]") {
  OutageTracker o;
  o.start(true, at(0));
  o.set_checkpointing(at(10));
  o.set_training(true, at(20));      // a checkpoint pause of 10 s
  o.set_training(false, at(30));
  o.set_training(true, at(30));      // zero length: nothing
  o.set_checkpointing(at(40));
  o.set_training(false, at(45));     // a failure joins the write: an outage
  o.set_training(true, at(60));
  o.finish(at(100));
  CHECK(o.outages() == 1);
  CHECK(o.longest().seconds_f() == 20);
  CHECK(o.checkpoint_pauses() == 1);
  CHECK(o.checkpoint_time().seconds_f() == 10);
  CHECK(o.downtime().seconds_f() == 30);
}

// --- renewal closed forms over seeds -------------------------------------

struct Moments {
  double mean = 0, se = 0;
};

template <class F>
Moments over_seeds(int seeds, F f) {
  double sum = 0, sum_sq = 0;
  for (int s = 1; s <= seeds; ++s) {
    const double x = f(static_cast<uint64_t>(s));
    sum += x;
    sum_sq += x * x;
  }
  const double mean = sum / seeds;
  const double var = (sum_sq - seeds * mean * mean) / (seeds - 1);
  return {mean, std::sqrt(std::max(0.0, var) / seeds)};
}

// data_parallel on 64 chips (chip MTBF 64 h: the job fails at L = 1/h), a
// repair of r = 1 s and no spares, restart R = 30 min. A failure while
// training costs r + R. During the restart:
//   absorb:  nothing more (the 1 s repair is over long before the restart),
//            f = 1 / (1 + L (r + R));
//   extend:  each failure adds x; the restart lasts T = R / (1 - L x),
//            f = 1 / (1 + L (r + T));
//   restart: f = e^(-L R) / (1 + L r) (tests/models/policy/test_data_parallel.cc).
TEST_CASE("data_parallel restart rules match their renewal closed forms",
          "[models][recovery][stat]") {
  const double rate = 64.0 / (64 * 3600), r = 1, big_r = 1800, x = 600;
  auto doc = testing::small_scenario("2000h", "64h", "1s", "30m");
  const auto uptime = [&](const std::string& rule, double expected) {
    doc["policies"][0]["failure_during_restart"] = rule;
    doc["policies"][0]["restart_extension"] = "10m";
    const auto prepared = testing::prepare_doc(doc);
    const Moments m = over_seeds(16, [&](uint64_t seed) {
      return run_policy(prepared, 0, seed, nullptr).uptime;
    });
    INFO(rule << ": mean uptime " << m.mean << ", closed form " << expected << ", se " << m.se);
    CHECK(m.se < 0.01);
    CHECK(std::abs(m.mean - expected) < 3 * m.se);
  };
  uptime("absorb", 1 / (1 + rate * (r + big_r)));
  uptime("extend", 1 / (1 + rate * (r + big_r / (1 - rate * x))));
  uptime("restart", std::exp(-rate * big_r) / (1 + rate * r));
}

// elastic_data_parallel on 64 one-chip slices (chip MTBF m, repair r = 1 h):
// each chip alternates up Exp(m) and down r, so slices leave and return at a
// total rate C = 2 x 64 / (m + r), locally Poisson because r is much longer
// than a pause d. Training stops for d at a change outside a pause:
//   coalesce: f = 1 / (1 + C d);   restart: f = e^(-C d).
TEST_CASE("elastic pause rules match their renewal closed forms", "[models][recovery][stat]") {
  const double m = 4 * 3600, r = 3600, d = 60;
  const double c = 2 * 64 / (m + r);
  nlohmann::json doc = {
      {"name", "elastic-renewal"},
      {"seed", 1},
      {"horizon", "200h"},
      {"cluster", {{"chips", 64}, {"chips_per_host", 1}, {"hosts_per_slice", 1}}},
      {"job", {{"params", 1e9}, {"tokens_per_step", 1e6}, {"step_time", "1s"}}},
      {"failures", {{{"type", "exponential_failures"}, {"mtbf", "4h"}, {"repair_time", "1h"}}}},
      {"policies", {{{"name", "e"}, {"type", "elastic_data_parallel"},
                     {"downscale_time", "60s"}, {"upscale_time", "60s"}}}}};
  const auto uptime = [&](const std::string& rule, double expected) {
    doc["policies"][0]["during_pause"] = rule;
    const auto prepared = testing::prepare_doc(doc);
    const Moments mo = over_seeds(16, [&](uint64_t seed) {
      return run_policy(prepared, 0, seed, nullptr).uptime;
    });
    INFO(rule << ": mean uptime " << mo.mean << ", closed form " << expected << ", se " << mo.se);
    CHECK(std::abs(mo.mean - expected) < 3 * mo.se);
  };
  uptime("coalesce", 1 / (1 + c * d));
  uptime("restart", std::exp(-c * d));
}

// Every new mode at once, on every policy type: the ledger invariant holds
// (run_policy checks it) and a run is determined by its seed.
TEST_CASE("new recovery modes: accounting and determinism", "[models][recovery]") {
  nlohmann::json doc = testing::small_scenario("3d", "2h", "20m", "5m", 16, 2);
  doc["cluster"]["spare_slices"] = 2;
  doc["failures"][0]["scope"] = "running";
  doc["failures"][0]["lemon_fraction"] = 0.2;
  doc["failures"][0]["lemon_multiplier"] = 4;
  doc["failures"][0]["lemon_clean"] = 0.5;
  doc["failures"][0].erase("repair_time");
  doc["failures"][0]["repair"] = {{{"name", "auto"}, {"time", "10m"}, {"success", 0.5}},
                                  {{"name", "manual"}, {"time", "1h"}}};
  doc["policies"][0]["failure_during_restart"] = "extend";
  doc["policies"][0]["standbys"] = 1;
  doc["policies"][0]["swap_overlaps_restart"] = true;
  const nlohmann::json resize = {{"during_pause", "extend"}, {"resize_per_slice", "2s"},
                                 {"upscale_every", "10m"}, {"upscale_batch", 3}};
  nlohmann::json elastic = {{"name", "e"}, {"type", "elastic_data_parallel"}};
  nlohmann::json diloco = {{"name", "d"}, {"type", "diloco"}, {"learners", 2},
                           {"inner_steps", 50}};
  nlohmann::json decoupled = {{"name", "dd"}, {"type", "decoupled_diloco"}, {"learners", 4},
                              {"inner_steps", 8}, {"fragments", 2}};
  for (auto* p : {&elastic, &diloco, &decoupled}) p->update(resize);
  doc["policies"].push_back(elastic);
  doc["policies"].push_back(diloco);
  doc["policies"].push_back(decoupled);
  const auto prepared = testing::prepare_doc(doc);
  for (size_t i = 0; i < prepared.policies.size(); ++i) {
    const output::PolicyResult a = run_policy(prepared, i, 11, nullptr);
    const output::PolicyResult b = run_policy(prepared, i, 11, nullptr);
    INFO(a.name);
    CHECK(a.failures > 0);
    CHECK(a.fingerprint == b.fingerprint);
    CHECK(a.goodput == b.goodput);
  }
}

}  // namespace
}  // namespace goodsim::models::policy
