// goodsim diff's statistics and rules on hand-made sides: the paired interval (same
// seeds), Welch's (different seeds), significance, --fail-on rules, missing values and
// how groups are matched. End to end through the binary: tests/cli/diff_cli.py.
#include <catch2/catch.hpp>
#include <cmath>

#include "app/diff/diff.h"
#include "app/sweep/metrics.h"
#include "app/sweep/stats.h"
#include "sim/scenario/error.h"

namespace goodsim::app::diff {
namespace {

// By name, not index: metrics.h may gain metrics. Tokens: unbounded, higher is better.
const size_t kTokens = *sweep::metric_index("tokens");

SideRow row(std::string group, std::string policy, size_t metric, uint64_t first_seed,
            const std::vector<std::optional<double>>& values) {
  SideRow r{std::move(group), std::move(policy), {}};
  MetricSample& s = r.metrics[metric].emplace();
  for (size_t k = 0; k < values.size(); ++k) s.seeds.push_back(first_seed + k);
  s.values = values;
  return r;
}

Side side(std::vector<SideRow> rows) { return Side{"x", "runs", "", std::move(rows)}; }

TEST_CASE("diff: same seeds give the paired interval of the per-seed differences",
          "[app][diff]") {
  const DiffResult r = diff_sides(side({row("s", "p", kTokens, 1, {10, 20, 30})}),
                                  side({row("s", "p", kTokens, 1, {11, 22, 33})}), {});
  REQUIRE(r.rows.size() == 1);
  const DiffRow& d = r.rows[0];
  CHECK(d.paired);
  CHECK(d.n == 3);
  CHECK(d.change == Approx(2));  // differences 1, 2, 3: sd 1
  const double half = sweep::t975(2) / std::sqrt(3.0);
  CHECK(*d.lo == Approx(2 - half));
  CHECK(*d.hi == Approx(2 + half));
  CHECK(d.verdict == "better");  // 2 > 3 SE = sqrt(3)
  CHECK(r.warnings.empty());
}

TEST_CASE("diff: different seeds give Welch's interval and a warning", "[app][diff]") {
  const DiffResult r = diff_sides(side({row("s", "p", kTokens, 1, {1, 2, 3, 4})}),
                                  side({row("s", "p", kTokens, 11, {2, 4, 6, 8, 10})}), {});
  const DiffRow& d = r.rows.at(0);
  CHECK_FALSE(d.paired);
  CHECK(d.change == Approx(3.5));
  // va = (5/3)/4, vb = 10/5; Welch-Satterthwaite df = 5.52, taken down to 5.
  const double va = 5.0 / 12, vb = 2;
  const double df = (va + vb) * (va + vb) / (va * va / 3 + vb * vb / 4);
  CHECK(df == Approx(5.5208).epsilon(1e-4));
  CHECK(*d.hi - d.change == Approx(sweep::t975(5) * std::sqrt(va + vb)));
  CHECK(d.verdict == "same");  // 3.5 < 3 SE = 4.66
  REQUIRE(r.warnings.size() == 1);
  CHECK_THAT(r.warnings[0], Catch::Contains("4 seeds 1..4, B has 5 seeds 11..15"));
}

TEST_CASE("diff: one value a side has no interval and no verdict", "[app][diff]") {
  const DiffResult r = diff_sides(side({row("s", "p", kTokens, 7, {5})}),
                                  side({row("s", "p", kTokens, 7, {9})}), {});
  CHECK(r.rows.at(0).change == 4);
  CHECK_FALSE(r.rows[0].lo);
  CHECK(r.rows[0].verdict == "n/a");
}

TEST_CASE("diff: a rule fires on a significant change beyond it, or a lost value",
          "[app][diff]") {
  const size_t ttt = *sweep::metric_index("time_to_target_s");
  std::vector<SideRow> a = {row("s", "p", kTokens, 1, {10, 20, 30})};
  std::vector<SideRow> b = {row("s", "p", kTokens, 1, {11, 22, 33})};
  a[0].metrics[ttt] = row("s", "p", ttt, 1, {100, 110, 120}).metrics[ttt];
  const std::optional<double> none;
  b[0].metrics[ttt] = row("s", "p", ttt, 1, {none, none, none}).metrics[ttt];
  const DiffResult r = diff_sides(side(a), side(b),
                                  {parse_rule("tokens >= 1.5"), parse_rule("tokens>=3"),
                                   parse_rule("time_to_target_s>1e9")});
  REQUIRE(r.rows.size() == 2);
  CHECK(r.rows[0].fired == std::vector<std::string>{"tokens >= 1.5"});
  CHECK(r.rows[1].verdict == "missing in B");
  CHECK(r.rows[1].fired == std::vector<std::string>{"time_to_target_s>1e9"});
  CHECK(r.fired() == 2);
}

TEST_CASE("diff: rules that do not parse name themselves", "[app][diff]") {
  using Catch::Contains;
  CHECK_THROWS_WITH(parse_rule("goodput"), Contains("--fail-on goodput: expected METRIC<X"));
  CHECK_THROWS_WITH(parse_rule("<1"), Contains("expected METRIC<X"));
  CHECK_THROWS_WITH(parse_rule("goodput<x"), Contains("expected a number after \"<\""));
  CHECK_THROWS_WITH(parse_rule("goodput<=inf"), Contains("expected a number"));
  CHECK_THROWS_WITH(parse_rule("godput<1"), Contains("unknown metric \"godput\""));
  const FailRule r = parse_rule(" uptime <= -0.01 ");
  CHECK((r.metric == *sweep::metric_index("uptime") && r.op == "<=" && r.threshold == -0.01));
}

TEST_CASE("diff: groups match by name, or one to one; the rest are warnings", "[app][diff]") {
  const DiffResult one = diff_sides(side({row("old", "p", kTokens, 1, {1})}),
                                    side({row("new", "p", kTokens, 1, {2})}), {});
  CHECK(one.rows.size() == 1);
  CHECK_THAT(one.warnings.at(0), Catch::Contains("A is \"old\" and B is \"new\""));
  const DiffResult two = diff_sides(
      side({row("x=1", "p", kTokens, 1, {1}), row("x=2", "p", kTokens, 1, {1})}),
      side({row("x=2", "p", kTokens, 1, {3}), row("x=3", "p", kTokens, 1, {1})}), {});
  REQUIRE(two.rows.size() == 1);
  CHECK(two.rows[0].group == "x=2");
  CHECK(two.warnings == std::vector<std::string>{"x=1 / p: only in A", "x=3 / p: only in B"});
  CHECK_THROWS_AS(diff_sides(side({row("a", "p", kTokens, 1, {1})}),
                             side({row("b", "q", kTokens, 1, {1})}), {}),
                  scenario::ScenarioError);
}

}  // namespace
}  // namespace goodsim::app::diff
