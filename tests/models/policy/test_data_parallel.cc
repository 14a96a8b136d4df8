// data_parallel against hand-computed accounting and the renewal closed form.
#include <catch2/catch.hpp>

#include <cmath>

#include <fmt/format.h>

#include "models/policy/checkpoint_config.h"
#include "tests/support/scenarios.h"

namespace goodsim::models {
namespace {

double badput(const output::PolicyResult& p, const std::string& category) {
  for (const auto& [name, value] : p.badput) {
    if (name == category) return value;
  }
  FAIL("no badput category " << category);
  return 0;
}

TEST_CASE("no failures: data_parallel goodput and uptime are exactly 1", "[models][dp]") {
  // 1000.5 s horizon: the unfinished last step still counts as productive.
  const auto prepared = testing::prepare_doc(testing::small_scenario("1000.5s", "", "", "5m"));
  const output::PolicyResult r = run_policy(prepared, 0, 1, nullptr);
  CHECK(r.goodput == 1.0);
  CHECK(r.uptime == 1.0);
  CHECK(r.outages == 0);
  CHECK(r.failures == 0);
  CHECK(r.steps == 1000);
  CHECK(r.tokens == 1000 * 1e6);
  for (const auto& [name, value] : r.badput) CHECK(value == 0.0);
}

TEST_CASE("accounting categories sum to chips x horizon", "[models][dp]") {
  const auto prepared = testing::prepare_doc(testing::small_scenario("30d", "50d", "2h", "10m"));
  const output::PolicyResult r = run_policy(prepared, 0, 3, nullptr);
  REQUIRE(r.failures > 10);
  const double chips = 64, horizon = 30 * 86400.0;
  double sum = r.goodput * chips * horizon;
  for (const auto& [name, value] : r.badput) sum += value;
  CHECK(sum == Approx(chips * horizon).epsilon(1e-12));
  CHECK(badput(r, "down") > 0);
  CHECK(badput(r, "reconfigure") > 0);
  CHECK(badput(r, "idle") > 0);  // waiting for repair
  CHECK(r.goodput <= r.uptime);
  CHECK(r.uptime >= 0.0);
  CHECK(r.uptime <= 1.0);
  // A step is lost at most once per stop, on all 64 chips.
  CHECK(badput(r, "lost_work") <= r.outages * 1.0 * chips + 1e-9);
}

// Renewal argument, with failure_during_restart "restart" (the absorbing
// rules are checked in test_recovery.cc): the fleet fails at rate L = chips / mtbf while the job
// runs or restarts (all chips up then). After a failure the job waits the
// repair time r, then restarts for R; a failure during the restart costs
// another r and a fresh restart. Expected down time per failure is
// r e^(LR) + (e^(LR) - 1) / L, so the share of time spent training is
//   f = e^(-LR) / (1 + L r).
// Failures during the short repair wait overlap and are neglected: their
// effect is of order (L r)^2 = 1e-6 here.
TEST_CASE("data_parallel uptime matches the renewal closed form (restart rule)",
          "[models][dp][stat]") {
  const double chips = 64, mtbf_h = 64, restart_h = 0.5, repair_s = 1;
  const double rate = chips / (mtbf_h * 3600), restart_s = restart_h * 3600;
  const double expected = std::exp(-rate * restart_s) / (1 + rate * repair_s);
  nlohmann::json doc = testing::small_scenario("2000h", "64h", "1s", "30m");
  doc["policies"][0]["failure_during_restart"] = "restart";
  const auto prepared = testing::prepare_doc(doc);
  const int seeds = 24;
  double sum = 0, sum_sq = 0;
  for (int s = 1; s <= seeds; ++s) {
    const output::PolicyResult r = run_policy(prepared, 0, static_cast<uint64_t>(s), nullptr);
    sum += r.uptime;
    sum_sq += r.uptime * r.uptime;
  }
  const double mean = sum / seeds;
  const double sd = std::sqrt((sum_sq - seeds * mean * mean) / (seeds - 1));
  const double se = sd / std::sqrt(seeds);
  INFO("mean uptime " << mean << ", closed form " << expected << ", se " << se);
  CHECK(se < 0.01);
  CHECK(std::abs(mean - expected) < 4 * se);
}

}  // namespace
}  // namespace goodsim::models

namespace goodsim::models {
namespace {

// Daly (2006): with failures at rate 1/M hitting compute, checkpoints and
// restarts alike, restart time R, checkpoint cost d and interval t, the
// expected wall time to finish T_s of compute is
//   T_w = M e^(R/M) (e^((t + d)/M) - 1) T_s / t.
double daly_wall_time(double m, double r, double d, double t, double ts) {
  return m * std::exp(r / m) * (std::exp((t + d) / m) - 1) * ts / t;
}

struct WallTimes {
  std::vector<double> samples;
  double mean() const {
    double s = 0;
    for (double x : samples) s += x;
    return s / static_cast<double>(samples.size());
  }
};

// Runs data_parallel with blocking checkpoints every `interval_s` of compute
// until `compute_s` seconds of steps are done, over `seeds` seeds. 64 chips
// with a per-chip MTBF of 64 h: the job's mean time to interrupt is 1 h;
// repairs are instant, so only the restart and the rollback cost time.
WallTimes dp_wall_times(double interval_s, double compute_s, int seeds) {
  nlohmann::json doc = testing::small_scenario("2000h", "64h", "0s", "5m");
  doc["job"]["target_tokens"] = compute_s * 1e6;
  doc["policies"][0]["checkpoint"] = {{"interval", fmt::format("{}s", interval_s)},
                                      {"write_time", "2m"}};
  const auto prepared = testing::prepare_doc(doc);
  WallTimes w;
  for (int s = 1; s <= seeds; ++s) {
    const auto r = run_policy(prepared, 0, static_cast<uint64_t>(s), nullptr);
    REQUIRE(r.time_to_target_s.has_value());
    w.samples.push_back(*r.time_to_target_s);
  }
  return w;
}

TEST_CASE("data_parallel wall time matches Daly's formula", "[models][dp][stat]") {
  const double m = 3600, r = 300, d = 120;
  const double tau = policy::daly_interval(core::Duration::seconds(120), core::Duration::hours(1))
                         .seconds_f();
  const double interval = std::round(tau), ts = 100 * interval;
  const WallTimes w = dp_wall_times(interval, ts, 200);
  double var = 0;
  for (double x : w.samples) var += (x - w.mean()) * (x - w.mean());
  const double se = std::sqrt(var / (w.samples.size() - 1) / w.samples.size());
  const double expected = daly_wall_time(m, r, d, interval, ts);
  INFO("mean " << w.mean() << " s, Daly " << expected << " s, se " << se);
  CHECK(se / expected < 0.005);
  CHECK(std::abs(w.mean() / expected - 1) < 0.02);
}

TEST_CASE("the daly interval beats intervals 30% shorter or longer", "[models][dp][stat]") {
  const double tau = std::round(
      policy::daly_interval(core::Duration::seconds(120), core::Duration::hours(1)).seconds_f());
  const double ts = 100 * tau;
  const double at_daly = dp_wall_times(tau, ts, 1000).mean();
  const double shorter = dp_wall_times(std::round(0.7 * tau), ts, 1000).mean();
  const double longer = dp_wall_times(std::round(1.3 * tau), ts, 1000).mean();
  INFO("daly " << at_daly << ", -30% " << shorter << ", +30% " << longer);
  CHECK(at_daly < shorter);
  CHECK(at_daly < longer);
}

}  // namespace
}  // namespace goodsim::models

namespace goodsim::models {
namespace {

TEST_CASE("data_parallel across sites stalls during a partition and resumes after it",
          "[models][dp]") {
  // 64 chips in two sites on a 100 Gbps link: each step adds a WAN ring
  // all-reduce of 2 GB: each site sends 2 x 2 GB x (1 - 1/2) = 1.6e10 bits:
  // 0.16 s. Site b is cut off for [100 s, 200 s).
  nlohmann::json doc = testing::small_scenario("1000s", "", "", "5m");
  doc["cluster"]["sites"] = {{{"name", "a"}}, {{"name", "b"}}};
  doc["cluster"]["links"] = {{{"from", "a"}, {"to", "b"}, {"bandwidth", "100Gbps"}}};
  doc["job"]["gradient_bytes"] = 2e9;
  doc["chaos"] = {{{"at", "100s"}, {"action", "partition"}, {"site", "b"}, {"duration", "100s"}}};
  const auto r = run_policy(testing::prepare_doc(doc), 0, 1, nullptr);
  // 900 s of running at 1.16 s per step (the step in flight at 100 s resumes).
  CHECK(r.steps == static_cast<uint64_t>(900 / 1.16));
  double sync = 0;
  for (const auto& [name, value] : r.badput) sync += name == "sync_wait" ? value : 0;
  // The WAN share of 900 s of steps plus the 100 s stall, on 64 chips.
  CHECK(sync == Approx(64 * (900 * 0.16 / 1.16 + 100)).epsilon(1e-6));
}

}  // namespace
}  // namespace goodsim::models
