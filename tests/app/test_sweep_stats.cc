// Sweep statistics: t quantiles, estimates, paired differences, adaptive
// replication, and the regression rule of goodsim check.
#include <catch2/catch.hpp>
#include <cmath>

#include "app/sweep/compare.h"
#include "app/sweep/metrics.h"
#include "app/sweep/replication.h"
#include "app/sweep/stats.h"

namespace goodsim::app::sweep {
namespace {

TEST_CASE("t_quantile: any level, against t975 and published quantiles", "[app][sweep]") {
  for (size_t df = 1; df <= 60; ++df) {
    INFO(df);
    CHECK(t_quantile(0.975, df) == Approx(t975(df)).epsilon(df <= 30 ? 1e-9 : 1e-6));
  }
  CHECK(t_quantile(0.95, 1) == Approx(6.313751514675).epsilon(1e-9));
  CHECK(t_quantile(0.95, 10) == Approx(1.812461122811).epsilon(1e-9));
  CHECK(t_quantile(0.99, 5) == Approx(3.364929998).epsilon(1e-8));
  CHECK(t_quantile(0.9, 1000) == Approx(1.282399).epsilon(1e-5));
}

TEST_CASE("t975: table and expansion agree with known quantiles", "[app][sweep]") {
  CHECK(t975(1) == Approx(12.7062047362).epsilon(1e-10));
  CHECK(t975(4) == Approx(2.7764451052).epsilon(1e-10));
  CHECK(t975(30) == Approx(2.0422724563).epsilon(1e-10));
  CHECK(t975(31) == Approx(2.0395134464).epsilon(1e-7));
  CHECK(t975(60) == Approx(2.0002978220).epsilon(1e-8));
  CHECK(t975(1000) == Approx(1.9623390808).epsilon(1e-9));
}

TEST_CASE("estimate: mean, sample sd and Student-t half-width", "[app][sweep]") {
  const Estimate e = estimate({2, 4, 4, 4, 5, 5, 7, 9});
  CHECK(e.n == 8);
  CHECK(e.mean == 5);
  CHECK(e.sd == Approx(std::sqrt(32.0 / 7)));
  CHECK(e.ci95 == Approx(t975(7) * std::sqrt(32.0 / 7) / std::sqrt(8.0)));
  const Estimate one = estimate({3});
  CHECK(one.mean == 3);
  CHECK(std::isnan(one.sd));
  CHECK(std::isnan(one.ci95));
  CHECK(estimate({}).n == 0);
}

TEST_CASE("paired difference: shared noise cancels; absent values are skipped", "[app][sweep]") {
  const std::vector<std::optional<double>> a = {0.70, 0.80, 0.90, std::nullopt};
  const std::vector<std::optional<double>> b = {0.71, 0.81, 0.91, 0.5};
  const Estimate d = paired_difference(a, b);
  CHECK(d.n == 3);
  CHECK(d.mean == Approx(0.01));
  CHECK(d.sd == Approx(0).margin(1e-12));
  // Unpaired, the same data would have a CI ~0.25 wide.
  CHECK(estimate(present(a)).ci95 > 0.2);
}

TEST_CASE("replication: fixed, or grow toward the CI target up to max_seeds", "[app][sweep]") {
  const Replication fixed = make_replication(1, 5, std::nullopt, std::nullopt);
  CHECK(fixed.next_count(5, {Estimate{5, 0.8, 0.1, 0.1}}) == 5);
  const Replication r = make_replication(7, 4, 0.01, 20);
  CHECK(r.seed(0) == 7);
  CHECK(r.next_count(4, {Estimate{4, 0.8, 0.001, 0.005}}) == 4);  // met
  CHECK(r.next_count(4, {Estimate{4, 0.8, 0.01, 0.012}}) == 6);   // ceil(4 * 1.44)
  CHECK(r.next_count(4, {Estimate{4, 0.8, 0.1, 0.005}, {4, 0.8, 0.1, 0.1}}) == 8);  // doubling cap
  CHECK(r.next_count(16, {Estimate{16, 0.8, 0.1, 0.1}}) == 20);                     // max_seeds cap
  CHECK(r.next_count(20, {Estimate{20, 0.8, 0.1, 0.1}}) == 20);
  CHECK(make_replication(1, 4, 0.01, std::nullopt).max_seeds == 100);
}

TEST_CASE("replication: bad options are rejected", "[app][sweep]") {
  CHECK_THROWS_WITH(make_replication(1, 0, std::nullopt, std::nullopt), Catch::Contains("--seeds"));
  CHECK_THROWS_WITH(make_replication(1, 5, std::nullopt, 10),
                    Catch::Contains("only applies with --ci-target"));
  CHECK_THROWS_WITH(make_replication(1, 5, 0.0, 10), Catch::Contains("half-width > 0"));
  CHECK_THROWS_WITH(make_replication(1, 1, 0.01, 10), Catch::Contains("at least 2"));
  CHECK_THROWS_WITH(make_replication(1, 5, 0.01, 3), Catch::Contains("expected 5 (--seeds)"));
}

TEST_CASE("check rule: direction-aware, 3 SE or floor, absolute tolerance", "[app][check]") {
  const BaselineMetric goodput{kGoodput, 0.80, 0.01, 5, std::nullopt, {}};
  const double se = std::sqrt(2 * 0.01 * 0.01 / 5);
  auto verdict = [&](double now, Better better, std::optional<double> tol = std::nullopt) {
    return compare_metric(goodput, Estimate{5, now, 0.01, 0.0}, better, tol).kind;
  };
  using K = Verdict::Kind;
  CHECK(verdict(0.80, Better::kHigher) == K::kOk);
  CHECK(verdict(0.80 - 2.9 * se, Better::kHigher) == K::kOk);
  CHECK(verdict(0.80 - 3.1 * se, Better::kHigher) == K::kRegressed);
  CHECK(verdict(0.80 + 3.1 * se, Better::kHigher) == K::kImproved);
  CHECK(verdict(0.80 + 3.1 * se, Better::kLower) == K::kRegressed);
  CHECK(verdict(0.80 + 3.1 * se, Better::kNone) == K::kChanged);
  CHECK(verdict(0.80 - 0.05, Better::kHigher, 0.06) == K::kOk);
  CHECK(verdict(0.80 - 0.07, Better::kHigher, 0.06) == K::kRegressed);
  // No spread at all: the 0.1% floor applies.
  const BaselineMetric exact{kGoodput, 0.80, 0.0, 5, std::nullopt, {}};
  const Verdict tiny =
      compare_metric(exact, Estimate{5, 0.7995, 0, 0}, Better::kHigher, std::nullopt);
  CHECK(tiny.kind == K::kOk);
  CHECK(tiny.rule == "floor");
  CHECK(compare_metric(exact, Estimate{5, 0.799, 0, 0}, Better::kHigher, std::nullopt).failed());
  CHECK(compare_metric(exact, Estimate{}, Better::kHigher, std::nullopt).failed());
}

TEST_CASE("check rule: paired seeds catch a shift the unpaired rule misses", "[app][check]") {
  const BaselineMetric b{kGoodput, 0.80, 0.02, 5, std::nullopt, {0.78, 0.79, 0.80, 0.81, 0.82}};
  const std::vector<std::optional<double>> now = {0.77, 0.78, 0.79, 0.80, 0.81};
  const Estimate e = estimate(present(now));
  const Verdict unpaired = compare_metric(b, e, Better::kHigher, std::nullopt);
  CHECK(unpaired.kind == Verdict::Kind::kOk);
  CHECK(unpaired.rule == "3 SE");
  const Estimate d = paired_difference({b.values.begin(), b.values.end()}, now);
  const Verdict paired = compare_metric(b, e, Better::kHigher, std::nullopt, d);
  CHECK(paired.kind == Verdict::Kind::kRegressed);  // -0.01 on every seed; the floor is 0.0008
  CHECK(paired.rule == "floor");
}

TEST_CASE("CI bounds stay inside the metric's range", "[app][stats]") {
  auto check_bounds = [](const Estimate& e, size_t metric, bool difference, double lo,
                         double hi) {
    const auto [l, h] = ci_bounds(e, metric, difference);
    CHECK(l == Approx(lo).margin(1e-12));
    CHECK(h == Approx(hi).margin(1e-12));
  };
  // Goodput 0.001 +- 0.002 (a policy that almost never trains): the t interval
  // would reach -0.001, an impossible goodput.
  check_bounds({5, 0.001, 0.0016, 0.002}, kGoodput, false, 0.0, 0.003);
  check_bounds({5, 0.999, 0.0016, 0.002}, kUptime, false, 0.997, 1.0);
  const size_t outages = *metric_index("outages");
  check_bounds({3, 0.5, 1, 2.5}, outages, false, 0.0, 3.0);
  // A difference of goodputs lies in [-1, 1]; of counts, anywhere.
  check_bounds({3, -0.9, 0.1, 0.3}, kGoodput, true, -1.0, -0.6);
  check_bounds({3, -0.5, 1, 2.5}, outages, true, -3.0, 2.0);
}

TEST_CASE("sweep metrics: wan_bytes always, cost_wan with a cost section", "[app][sweep]") {
  output::PolicyResult p;
  p.wan_bytes = 3e12;
  MetricValues v = metric_values(p);
  CHECK(v[*metric_index("wan_bytes")] == 3e12);
  CHECK_FALSE(v[*metric_index("cost_wan")].has_value());
  p.cost = output::CostResult{};
  p.cost->wan = 60;
  p.cost->by_category.assign(8, {"c", 1.0});
  v = metric_values(p);
  CHECK(v[*metric_index("cost_wan")] == 60);
  CHECK(v[*metric_index("cost_sync_wait")] == 1.0);
}

}  // namespace
}  // namespace goodsim::app::sweep
