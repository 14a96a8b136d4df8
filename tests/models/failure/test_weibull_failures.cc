// weibull_failures: fleet rate (stationary start and renewal with repairs),
// shape recovered by maximum likelihood, agreement with a naive per-chip
// simulation, with exponential_failures at shape 1, lemons, and the heap.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

#include "models/failure/exponential_failures.h"
#include "models/failure/lifetime_heap.h"
#include "models/failure/weibull_failures.h"
#include "sim/core/distributions.h"
#include "tests/support/injector_harness.h"

namespace goodsim::models::failure {
namespace {

using Harness = testing::InjectorHarness;

WeibullFailuresConfig config(double shape, double mtbf_s, double repair_s, bool stationary) {
  WeibullFailuresConfig c;
  c.shape = shape;
  c.scale_s = mtbf_s / std::tgamma(1 + 1 / shape);
  c.repair_time = core::Distribution::fixed(repair_s);
  c.stationary_start = stationary;
  return c;
}

testing::Recorder run(uint32_t chips, const WeibullFailuresConfig& c, double horizon,
                      uint64_t seed) {
  Harness h(chips, seed);
  WeibullFailures inj(c, "failures.weibull");
  h.run(inj, horizon);
  CHECK(inj.failures() == h.recorder.total);
  CHECK(inj.preempted() == 0);  // alone, nothing else takes chips down
  return h.recorder;
}

// E[L^2] of a Weibull lifetime.
double weibull_m2(double shape, double scale) {
  return scale * scale * std::tgamma(1 + 2 / shape);
}

TEST_CASE("stationary start: the fleet fails at chips / mtbf from t = 0", "[models][failure][stat]") {
  // With instant repairs each chip is a stationary renewal process, so
  // E[N(T)] = T / mtbf exactly; the SE comes from the per-chip counts.
  const uint32_t chips = 20000;
  const double shape = 0.7, mtbf = 100, window = 50;
  const auto stat = run(chips, config(shape, mtbf, 0, true), window, 1);
  const testing::SumStats s = testing::sum_stats(stat.failures);
  const double expected = chips * window / mtbf;
  INFO(s.sum << " failures, expected " << expected << " +- " << s.se);
  CHECK(std::abs(s.sum - expected) < 3 * s.se);
  // A new fleet with decreasing hazard fails much more at first.
  const auto fresh = run(chips, config(shape, mtbf, 0, false), window, 1);
  const testing::SumStats f = testing::sum_stats(fresh.failures);
  CHECK(f.sum > expected + 10 * f.se);
}

TEST_CASE("weibull fleet count with repairs matches renewal theory", "[models][failure][stat]") {
  // New chips, lognormal repairs: delayed renewal, first failure at L, then
  // every X = R + L. E[N] = (T - E[L]) / m + E[X^2] / (2 m^2), m = E[X],
  // Var[N] = T Var[X] / m^3 per chip.
  const uint32_t chips = 2000;
  const double shape = 1.5, mtbf = 100, horizon = 3000, er = 30, cv = 0.5;
  WeibullFailuresConfig c = config(shape, mtbf, 0, false);
  c.repair_time = core::Distribution::lognormal_mean_cv(er, cv);
  const auto log = run(chips, c, horizon, 2);
  const double el2 = weibull_m2(shape, c.scale_s), er2 = er * er * (1 + cv * cv);
  const double m = mtbf + er, ex2 = el2 + 2 * mtbf * er + er2;
  const double var_x = el2 - mtbf * mtbf + er2 - er * er;
  const double expected = chips * ((horizon - mtbf) / m + ex2 / (2 * m * m));
  const double sd = std::sqrt(chips * horizon * var_x / (m * m * m));
  INFO(log.total << " failures, expected " << expected << " +- " << sd);
  CHECK(std::abs(static_cast<double>(log.total) - expected) < 3 * sd);
  // Per chip: lifetimes that began before T - 10 mtbf all ended before T
  // (P(L > 10 mtbf) ~ e^-27), and each is a fresh draw whatever came before,
  // so their mean estimates the MTBF with SE sd(L) / sqrt(n).
  double sum = 0, n = 0;
  for (size_t i = 0; i < log.lifetimes.size(); ++i) {
    if (log.lifetime_starts[i] > horizon - 10 * mtbf) continue;
    sum += log.lifetimes[i];
    n += 1;
  }
  const double est = sum / n;
  const double se = std::sqrt(el2 - mtbf * mtbf) / std::sqrt(n);
  INFO("per-chip MTBF " << est << " +- " << se << " from " << n << " lifetimes");
  CHECK(std::abs(est - mtbf) < 3 * se);
}

// Maximum-likelihood Weibull fit with right-censoring: the shape k solves
//   sum_all t^k ln t / sum_all t^k - 1/k - mean_failed(ln t) = 0
// (increasing in k; bisection), then scale^k = sum_all t^k / failures.
struct Fit {
  double shape;
  double scale;
};
Fit fit_weibull(const std::vector<double>& failed, const std::vector<double>& censored) {
  std::vector<double> all = failed;
  all.insert(all.end(), censored.begin(), censored.end());
  double mean_log = 0;
  for (double t : failed) mean_log += std::log(t);
  mean_log /= static_cast<double>(failed.size());
  auto sums = [&](double k, double& s0, double& s1) {
    s0 = s1 = 0;
    for (double t : all) {
      if (t <= 0) continue;
      const double tk = std::pow(t, k);
      s0 += tk;
      s1 += tk * std::log(t);
    }
  };
  double lo = 0.05, hi = 20;
  for (int i = 0; i < 100; ++i) {
    const double k = 0.5 * (lo + hi);
    double s0 = 0, s1 = 0;
    sums(k, s0, s1);
    (s1 / s0 - 1 / k - mean_log > 0 ? hi : lo) = k;
  }
  const double k = 0.5 * (lo + hi);
  double s0 = 0, s1 = 0;
  sums(k, s0, s1);
  return {k, std::pow(s0 / static_cast<double>(failed.size()), 1 / k)};
}

TEST_CASE("weibull shape and scale are recovered by maximum likelihood", "[models][failure][stat]") {
  // Lifetimes run from a (re)start at age 0 to the next failure; the last one
  // of each chip is censored at the horizon. The MLE's asymptotic SEs for n
  // failures: sd(k) = 0.78 k / sqrt(n) (Fisher information 6 / pi^2), and
  // sd(scale) = 1.05 scale / (k sqrt(n)).
  for (double shape : {0.7, 2.0}) {
    const uint32_t chips = 2000;
    const double mtbf = 100, horizon = 1500;
    const WeibullFailuresConfig c = config(shape, mtbf, 1, false);
    const auto log = run(chips, c, horizon, 3);
    const Fit fit = fit_weibull(log.lifetimes, log.censored);
    const double n = static_cast<double>(log.lifetimes.size());
    INFO("shape " << shape << ": fit k = " << fit.shape << ", scale = " << fit.scale << " vs "
                  << c.scale_s << " from " << n << " lifetimes");
    CHECK(std::abs(fit.shape - shape) < 3 * 0.78 * shape / std::sqrt(n));
    CHECK(std::abs(fit.scale - c.scale_s) < 3 * 1.05 * c.scale_s / (shape * std::sqrt(n)));
  }
}

// A naive reference: one Weibull clock per chip, new at t = 0, fresh after repair.
std::vector<uint64_t> naive_counts(uint32_t chips, double shape, double scale, double repair,
                                   double horizon, uint64_t seed) {
  core::Rng rng = core::Rng::for_stream(seed, "naive");
  std::vector<uint64_t> counts(chips, 0);
  for (uint32_t c = 0; c < chips; ++c) {
    for (double t = core::weibull(rng, shape, scale); t <= horizon;
         t += repair + core::weibull(rng, shape, scale)) {
      ++counts[c];
    }
  }
  return counts;
}

TEST_CASE("weibull heap agrees with one clock per chip (chi-square)", "[models][failure][stat]") {
  const uint32_t chips = 4000;
  const double shape = 0.6, mtbf = 100, repair = 20, horizon = 300;
  const WeibullFailuresConfig c = config(shape, mtbf, repair, false);
  const auto fast = run(chips, c, horizon, 5);
  const auto slow = naive_counts(chips, shape, c.scale_s, repair, horizon, 5);
  // Counts 0..5 and 6+: 6 degrees of freedom, the 0.001 critical value is 22.5.
  const double chi2 = testing::two_sample_chi2(testing::count_histogram(fast.failures, 7),
                                               testing::count_histogram(slow, 7));
  INFO("chi2 = " << chi2);
  CHECK(chi2 < 22.5);
}

TEST_CASE("weibull with shape 1 agrees with exponential_failures (chi-square)",
          "[models][failure][stat]") {
  const uint32_t chips = 4000;
  const double mtbf = 100, repair = 20, horizon = 300;
  const auto weib = run(chips, config(1.0, mtbf, repair, true), horizon, 6);
  ExponentialFailuresConfig e;
  e.mtbf = core::Duration::from_seconds(mtbf);
  e.repair = RepairPipeline::single(core::Distribution::fixed(repair));
  Harness h(chips, 6);
  ExponentialFailures inj(e, "failures.exp");
  h.run(inj, horizon);
  const double chi2 = testing::two_sample_chi2(testing::count_histogram(weib.failures, 7),
                                               testing::count_histogram(h.recorder.failures, 7));
  INFO("chi2 = " << chi2);
  CHECK(chi2 < 22.5);
}

TEST_CASE("weibull lemons fail at multiplier times the rate", "[models][failure][stat]") {
  const uint32_t chips = 20000;
  const double shape = 0.7, mtbf = 100, horizon = 100, multiplier = 5;
  WeibullFailuresConfig c = config(shape, mtbf, 0, true);
  c.lemon_fraction = 0.02;
  c.lemon_multiplier = multiplier;
  Harness h(chips, 7);
  WeibullFailures inj(c, "failures.lemons");
  h.run(inj, horizon);
  REQUIRE(inj.lemons().size() == 400);
  std::vector<uint64_t> normal, lemon;
  for (uint32_t chip = 0; chip < chips; ++chip) {
    (inj.lemons().contains(chip) ? lemon : normal).push_back(h.recorder.failures[chip]);
  }
  // Stationary, instant repairs: E[count] = horizon / mean lifetime per chip.
  const testing::SumStats n = testing::sum_stats(normal), l = testing::sum_stats(lemon);
  const double en = normal.size() * horizon / mtbf, el = lemon.size() * horizon * multiplier / mtbf;
  INFO("normal " << n.sum << " vs " << en << " +- " << n.se << "; lemon " << l.sum << " vs " << el
                 << " +- " << l.se);
  CHECK(std::abs(n.sum - en) < 3 * n.se);
  CHECK(std::abs(l.sum - el) < 3 * l.se);
}

TEST_CASE("a lifetime ending on a chip down from another outage is pre-empted",
          "[models][failure]") {
  // Host 0 (chips 0-3) is down for the whole run: its chips never fail but
  // keep renewing; the others fail normally.
  Harness h(4, 1, {{"a", 8}}, 11);
  h.state.fail(cluster::Domain::kHost, 0, core::SimTime::zero());
  WeibullFailures inj(config(0.8, 10, 1, true), "failures.w");
  h.run(inj, 1000);
  for (uint32_t chip = 0; chip < 4; ++chip) CHECK(h.recorder.failures[chip] == 0);
  CHECK(inj.preempted() > 100);
  CHECK(inj.failures() > 1000);
}

TEST_CASE("gamma sampler has the right mean and variance", "[models][failure][stat]") {
  for (double a : {0.4, 1.0, 1 / 0.7, 3.0}) {
    core::Rng rng = core::Rng::for_stream(1, "gamma");
    const int n = 200000;
    double s = 0, s2 = 0;
    for (int i = 0; i < n; ++i) {
      const double g = gamma_unit(rng, a);
      s += g;
      s2 += g * g;
    }
    const double mean = s / n, var = s2 / n - mean * mean;
    // Gamma(a): mean a, variance a, fourth central moment 3a^2 + 6a.
    INFO("a = " << a << ": mean " << mean << ", var " << var);
    CHECK(std::abs(mean - a) < 4 * std::sqrt(a / n));
    CHECK(std::abs(var - a) < 4 * std::sqrt((3 * a * a + 6 * a - a * a) / n));
  }
}

TEST_CASE("lifetime heap pops in (time, chip) order", "[models][failure]") {
  core::Rng rng = core::Rng::for_stream(2, "heap");
  std::vector<LifetimeHeap::Entry> ref;
  for (uint32_t i = 0; i < 1000; ++i) ref.push_back({static_cast<int64_t>(rng.below(300)), i});
  LifetimeHeap heap;
  heap.build({ref.begin(), ref.begin() + 500});
  for (size_t i = 500; i < ref.size(); ++i) heap.push(ref[i]);
  auto key = [](const LifetimeHeap::Entry& e) { return std::pair(e.time_ns, e.chip); };
  std::sort(ref.begin(), ref.end(), [&](auto& a, auto& b) { return key(a) < key(b); });
  for (const auto& e : ref) {
    REQUIRE(!heap.empty());
    CHECK(key(heap.top()) == key(e));
    heap.pop();
  }
  CHECK(heap.empty());
}

}  // namespace
}  // namespace goodsim::models::failure
