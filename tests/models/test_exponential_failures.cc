// exponential_failures: rates, uniformity over chips, and superposition vs a
// naive one-clock-per-chip simulation.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "models/failure/exponential_failures.h"
#include "sim/core/distributions.h"
#include "tests/support/scenarios.h"

namespace goodsim::models::failure {
namespace {

struct FailureLog : cluster::ClusterObserver {
  std::vector<uint64_t> per_chip;
  uint64_t total = 0;
  explicit FailureLog(uint64_t chips) : per_chip(chips, 0) {}
  void on_cluster_change(const cluster::ClusterChange& c) override {
    if (!c.failed) return;
    ++per_chip[c.id];
    ++total;
  }
};

// Runs the injector alone over a `chips`-chip single-slice-per-host cluster.
FailureLog run_injector(uint32_t chips, double mtbf_s, double repair_s, double horizon_s,
                        uint64_t seed) {
  const cluster::Layout layout(1, 1, {{"a", chips}});
  const cluster::Network network;
  const scenario::JobSpec job{1, 1, core::Duration::seconds(1), std::nullopt};
  const std::string name = "test";
  core::Simulation sim(seed);
  cluster::ClusterState state(layout);
  FailureLog log(chips);
  state.add_observer(&log);
  RunContext ctx{sim, state, network, job, nullptr, name};
  ExponentialFailures inj({core::Duration::from_seconds(mtbf_s), core::Duration::from_seconds(repair_s)},
                          "failures.test");
  inj.start(ctx);
  sim.run_until(core::SimTime::zero() + core::Duration::from_seconds(horizon_s));
  CHECK(inj.failures() == log.total);
  return log;
}

TEST_CASE("fleet failure count matches renewal theory", "[models][failure][stat]") {
  // Each chip is a renewal process with cycle X = Exp(mtbf) + repair r:
  // mu = mtbf + r, var = mtbf^2. Over T >> mu, per chip
  //   E[N] = T / mu + E[X^2] / (2 mu^2) - 1,   Var[N] = T var / mu^3,
  // and chips are independent.
  const uint32_t chips = 1000;
  const double mtbf = 1000, repair = 100, horizon = 20000;
  const double mu = mtbf + repair, ex2 = mtbf * mtbf + mu * mu;
  const double expected = chips * (horizon / mu + ex2 / (2 * mu * mu) - 1);
  const double sd = std::sqrt(chips * horizon * mtbf * mtbf / (mu * mu * mu));
  for (uint64_t seed : {1, 2, 3}) {
    const FailureLog log = run_injector(chips, mtbf, repair, horizon, seed);
    INFO("seed " << seed << ": " << log.total << " failures, expected " << expected << " +- " << sd);
    CHECK(std::abs(static_cast<double>(log.total) - expected) < 4 * sd);
  }
}

TEST_CASE("failures spread uniformly over chips", "[models][failure][stat]") {
  const uint32_t chips = 200;
  const FailureLog log = run_injector(chips, 500, 1, 100000, 9);
  const double mean = static_cast<double>(log.total) / chips;
  double chi2 = 0;
  for (uint64_t n : log.per_chip) chi2 += (n - mean) * (n - mean) / mean;
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
  // Histogram per-chip failure counts from both methods over many chips and
  // compare the distributions with a two-sample chi-square test.
  const uint32_t chips = 4000;
  const double mtbf = 100, repair = 20, horizon = 300;
  const FailureLog fast = run_injector(chips, mtbf, repair, horizon, 5);
  const std::vector<uint64_t> slow = naive_counts(chips, mtbf, repair, horizon, 5);
  constexpr size_t kBins = 6;  // counts 0..4 and 5+
  std::array<double, kBins> a{}, b{};
  for (uint32_t c = 0; c < chips; ++c) {
    a[std::min<size_t>(fast.per_chip[c], kBins - 1)] += 1;
    b[std::min<size_t>(slow[c], kBins - 1)] += 1;
  }
  double chi2 = 0;
  for (size_t i = 0; i < kBins; ++i) {
    if (a[i] + b[i] > 0) chi2 += (a[i] - b[i]) * (a[i] - b[i]) / (a[i] + b[i]);
  }
  // 5 degrees of freedom: the 0.001 critical value is 20.5.
  INFO("chi2 = " << chi2);
  CHECK(chi2 < 20.5);
}

}  // namespace
}  // namespace goodsim::models::failure
