// decoupled_diloco's global uptime: summary diagnostics all_paused_fraction
// (every learner paused at once) against the closed form for independent
// learners, 1 - uptime = product over learners of each one's paused share.
#include <catch2/catch.hpp>

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "models/runner.h"
#include "tests/support/scenarios.h"

namespace goodsim::models {
namespace {

// The paused share of learner k: 1 - its training time / the run.
double paused_share(const output::LearnerResult& l, double end_s) {
  for (const auto& [mode, seconds] : l.time_by_mode) {
    if (mode == "training") return 1 - seconds / end_s;
  }
  return 1;
}

// Two learners, each an elastic group of `slices_each` 4-chip slices, chip
// MTBF 10 days, 1 h repairs, 30 min pauses, 1 min steps: per seed, the paired difference
// between the share with both paused and the product of their shares.
void check_closed_form(int slices_each) {
  nlohmann::json doc = testing::small_scenario("60d", "10d", "1h", "5m", 2 * slices_each, 1);
  doc["job"]["step_time"] = "1m";  // few rounds: the learners' pauses are what matters here
  doc["policies"] = {{{"name", "dd"}, {"type", "decoupled_diloco"}, {"learners", 2},
                      {"downscale_time", "30m"}, {"upscale_time", "30m"},
                      {"rejoin_overhead", "0s"}}};
  const PreparedScenario p = testing::prepare_doc(doc);
  const int seeds = 24;
  double sum = 0, sum2 = 0, all = 0;
  for (int s = 0; s < seeds; ++s) {
    const output::PolicyResult r = run_policy(p, 0, 1 + s, nullptr);
    const double end = r.diagnostics.end_s;
    const std::optional<double> fraction = r.diagnostics.extra.number("all_paused_fraction");
    REQUIRE(fraction.has_value());
    const double both = *fraction;
    CHECK(both == Approx(1 - r.uptime).margin(1e-12));
    REQUIRE(r.learners.size() == 2);
    const double product = paused_share(r.learners[0], end) * paused_share(r.learners[1], end);
    sum += both - product;
    sum2 += (both - product) * (both - product);
    all += both;
  }
  const double mean = sum / seeds;
  const double se = std::sqrt((sum2 / seeds - mean * mean) / (seeds - 1));
  INFO("slices per learner " << slices_each << ": all paused " << all / seeds
                             << ", mean difference " << mean << " +- " << se);
  CHECK(all / seeds > 0.005);  // the check has something to compare
  CHECK(std::abs(mean) < 4 * se + 1e-4);
}

TEST_CASE("decoupled_diloco: every learner paused at once, against independent learners",
          "[models][decoupled]") {
  check_closed_form(8);
  check_closed_form(32);
}

}  // namespace
}  // namespace goodsim::models
