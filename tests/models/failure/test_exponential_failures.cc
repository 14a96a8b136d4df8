// exponential_failures: rates (renewal theory), uniformity over chips,
// superposition vs a naive one-clock-per-chip simulation, repair
// distributions, lemons and root causes.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "models/failure/exponential_failures.h"
#include "sim/core/distributions.h"
#include "tests/support/injector_harness.h"

namespace goodsim::models::failure {
namespace {

using Harness = testing::InjectorHarness;

ExponentialFailuresConfig config(double mtbf_s, core::Distribution repair) {
  ExponentialFailuresConfig c;
  c.mtbf = core::Duration::from_seconds(mtbf_s);
  c.repair = RepairPipeline::single(std::move(repair));
  return c;
}

// Runs the injector alone over `chips` chips (one per host and slice).
testing::Recorder run_injector(uint32_t chips, const ExponentialFailuresConfig& c,
                               double horizon_s, uint64_t seed) {
  Harness h(chips, seed);
  ExponentialFailures inj(c, "failures.test");
  h.run(inj, horizon_s);
  CHECK(inj.failures() == h.recorder.total);
  return h.recorder;
}

testing::Recorder run_injector(uint32_t chips, double mtbf, double repair, double horizon,
                               uint64_t seed) {
  return run_injector(chips, config(mtbf, core::Distribution::fixed(repair)), horizon, seed);
}

// Expected failures of one chip over [0, T] when it starts up: failures are
// a delayed renewal process, first at an up-time L, then every cycle
// X = R + L (R the repair). For T >> E[X]:
//   E[N] = (T - E[L]) / m + E[X^2] / (2 m^2),   Var[N] = T Var[X] / m^3,
// with m = E[X]. Chips are independent, so fleet figures are chips times.
struct Renewal {
  double mean;
  double sd;
};
Renewal renewal(double chips, double horizon, double el, double el2, double er, double er2) {
  const double m = el + er;
  const double ex2 = el2 + 2 * el * er + er2;
  const double var_x = (el2 - el * el) + (er2 - er * er);
  return {chips * ((horizon - el) / m + ex2 / (2 * m * m)),
          std::sqrt(chips * horizon * var_x / (m * m * m))};
}

TEST_CASE("fleet failure count matches renewal theory", "[models][failure][stat]") {
  const uint32_t chips = 1000;
  const double mtbf = 1000, repair = 100, horizon = 20000;
  const Renewal r = renewal(chips, horizon, mtbf, 2 * mtbf * mtbf, repair, repair * repair);
  for (uint64_t seed : {1, 2, 3}) {
    const auto log = run_injector(chips, mtbf, repair, horizon, seed);
    INFO("seed " << seed << ": " << log.total << " failures, expected " << r.mean << " +- " << r.sd);
    CHECK(std::abs(static_cast<double>(log.total) - r.mean) < 3 * r.sd);
  }
}

TEST_CASE("lognormal repair times: renewal count and per-chip MTBF", "[models][failure][stat]") {
  const uint32_t chips = 2000;
  const double mtbf = 500, horizon = 10000, repair_mean = 100, cv = 1.0;
  const auto log = run_injector(
      chips, config(mtbf, core::Distribution::lognormal_mean_cv(repair_mean, cv)), horizon, 4);
  const double er2 = repair_mean * repair_mean * (1 + cv * cv);
  const Renewal r = renewal(chips, horizon, mtbf, 2 * mtbf * mtbf, repair_mean, er2);
  INFO(log.total << " failures, expected " << r.mean << " +- " << r.sd);
  CHECK(std::abs(static_cast<double>(log.total) - r.mean) < 3 * r.sd);
  // Per chip: up-time per failure estimates the MTBF; exponential lifetimes
  // give it a relative standard error of 1 / sqrt(failures).
  const double up = chips * horizon - log.down_s;
  const double est = up / static_cast<double>(log.total);
  const double se = mtbf / std::sqrt(static_cast<double>(log.total));
  INFO("per-chip MTBF estimate " << est << " +- " << se);
  CHECK(std::abs(est - mtbf) < 3 * se);
}

TEST_CASE("failures spread uniformly over chips", "[models][failure][stat]") {
  const uint32_t chips = 200;
  const auto log = run_injector(chips, 500, 1, 100000, 9);
  const double mean = static_cast<double>(log.total) / chips;
  double chi2 = 0;
  for (uint64_t n : log.failures) chi2 += (n - mean) * (n - mean) / mean;
  // 199 degrees of freedom: mean 199, sd ~20; 290 is beyond p = 0.0001.
  INFO("chi2 = " << chi2);
  CHECK(chi2 < 290);
  CHECK(chi2 > 120);
}

// A naive reference: one exponential clock per chip, re-armed after repair.
std::vector<uint64_t> naive_counts(uint32_t chips, double mtbf, double repair, double horizon,
                                   uint64_t seed) {
  core::Rng rng = core::Rng::for_stream(seed, "naive");
  std::vector<uint64_t> counts(chips, 0);
  for (uint32_t c = 0; c < chips; ++c) {
    for (double t = core::exponential(rng, mtbf); t <= horizon;
         t += repair + core::exponential(rng, mtbf)) {
      ++counts[c];
    }
  }
  return counts;
}

TEST_CASE("superposition agrees with one clock per chip (chi-square)", "[models][failure][stat]") {
  const uint32_t chips = 4000;
  const double mtbf = 100, repair = 20, horizon = 300;
  const auto fast = run_injector(chips, mtbf, repair, horizon, 5);
  const auto slow = naive_counts(chips, mtbf, repair, horizon, 5);
  // Counts 0..4 and 5+: 5 degrees of freedom, the 0.001 critical value is 20.5.
  const double chi2 = testing::two_sample_chi2(testing::count_histogram(fast.failures, 6),
                                               testing::count_histogram(slow, 6));
  INFO("chi2 = " << chi2);
  CHECK(chi2 < 20.5);
}

// Up-time of chip c over [0, T] with a fixed repair time r.
double chip_up_time(const testing::Recorder& log, size_t c, double horizon, double r) {
  double down = static_cast<double>(log.failures[c]) * r;
  if (log.down_since[c] >= 0) down -= r - (horizon - log.down_since[c]);
  return horizon - down;
}

TEST_CASE("lemon chips fail at multiplier times the rate", "[models][failure][stat]") {
  const uint32_t chips = 10000;
  const double mtbf = 1000, repair = 1, horizon = 10000, multiplier = 4;
  ExponentialFailuresConfig c = config(mtbf, core::Distribution::fixed(repair));
  c.lemon_fraction = 0.05;
  c.lemon_multiplier = multiplier;
  Harness h(chips, 21);
  ExponentialFailures inj(c, "failures.lemons");
  h.run(inj, horizon);
  REQUIRE(inj.lemons().size() == 500);
  double up[2] = {0, 0}, n[2] = {0, 0};
  for (uint32_t chip = 0; chip < chips; ++chip) {
    const int g = inj.lemons().contains(chip) ? 1 : 0;
    up[g] += chip_up_time(h.recorder, chip, horizon, repair);
    n[g] += static_cast<double>(h.recorder.failures[chip]);
  }
  // MTBF estimate per group = up-time / failures, relative SE 1 / sqrt(n).
  const double normal_mtbf = up[0] / n[0], lemon_mtbf = up[1] / n[1];
  INFO("normal " << normal_mtbf << " (" << n[0] << "), lemon " << lemon_mtbf << " (" << n[1] << ")");
  CHECK(std::abs(normal_mtbf / mtbf - 1) < 3 / std::sqrt(n[0]));
  CHECK(std::abs(lemon_mtbf / (mtbf / multiplier) - 1) < 3 / std::sqrt(n[1]));
  const double ratio = normal_mtbf / lemon_mtbf;
  CHECK(std::abs(ratio / multiplier - 1) < 3 * std::sqrt(1 / n[0] + 1 / n[1]));
}

TEST_CASE("lemon set is a deterministic function of the stream", "[models][failure]") {
  auto lemons = [](uint64_t seed) {
    Harness h(1000, seed);
    ExponentialFailuresConfig c = config(1e6, core::Distribution::fixed(1));
    c.lemon_fraction = 0.012;
    ExponentialFailures inj(c, "failures.x");
    h.run(inj, 1);
    return inj.lemons().ids();
  };
  const auto a = lemons(3);
  CHECK(a.size() == 12);
  CHECK(std::is_sorted(a.begin(), a.end()));
  CHECK(std::adjacent_find(a.begin(), a.end()) == a.end());
  CHECK(a == lemons(3));
  CHECK(a != lemons(4));
}

TEST_CASE("root causes are drawn in proportion (chi-square)", "[models][failure][stat]") {
  const nlohmann::json doc = {{"causes", {{"gpu", 0.5}, {"software", "30%"}, {"network", 0.2}}}};
  scenario::ObjectReader r(doc, "");
  ExponentialFailuresConfig c = config(100, core::Distribution::fixed(1));
  c.causes = CauseMix::from_json(r, "causes", "unspecified");
  REQUIRE(c.causes.size() == 3);
  Harness h(1000, 8);
  ExponentialFailures inj(c, "failures.causes");
  h.run(inj, 1000);
  const double total = static_cast<double>(h.recorder.total);
  double chi2 = 0;
  for (size_t i = 0; i < 3; ++i) {
    const cluster::CauseId id = h.state.intern_cause(c.causes.name(i));
    const double expected = total * c.causes.probability(i);
    const double got = static_cast<double>(h.recorder.per_cause.at(id));
    chi2 += (got - expected) * (got - expected) / expected;
  }
  // 2 degrees of freedom: the 0.001 critical value is 13.8.
  INFO("chi2 = " << chi2 << " over " << total << " failures");
  CHECK(chi2 < 13.8);
  CHECK(h.recorder.per_cause[cluster::kUnspecifiedCause] == 0);
}

}  // namespace
}  // namespace goodsim::models::failure
