// transient_stragglers per learner (domain "learner"): the learners' slice
// shares against the policies' placement, whole learners slowed alike, the
// checks of "learners", and the same per-learner speeds for every policy of
// scenarios/paper-heterogeneous.json.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "models/policy/diloco_plan.h"
#include "models/straggler/transient_stragglers.h"
#include "sim/scenario/error.h"
#include "sim/scenario/json_file.h"
#include "tests/support/scenarios.h"
#include "tests/support/straggler_bench.h"

namespace goodsim::models::straggler {
namespace {

using cluster::SlowdownChangeKind;
using nlohmann::json;

TEST_CASE("learner shares are decoupled_diloco's and diloco's contiguous learners",
          "[straggler]") {
  for (uint32_t slices : {1u, 7u, 16u, 61u}) {
    for (uint32_t spares : {0u, 1u, 3u}) {
      if (spares >= slices) continue;
      const cluster::Layout layout(4, 1, {{"a", slices}}, spares);
      const uint32_t members = slices - spares;
      for (uint32_t m = 1; m <= members; ++m) {
        const auto ranges = policy::place_learners(layout, m, policy::LearnerPlacement::kContiguous);
        for (uint32_t k = 0; k < m; ++k) {
          INFO(slices << " slices, " << spares << " spares, learner " << k << " of " << m);
          const LearnerShare s = learner_share(layout, m, k);
          CHECK(s.first == ranges[k].first);
          CHECK(s.end == ranges[k].end);
        }
      }
    }
  }
}

TEST_CASE("transient episodes per learner slow every slice of the learner alike",
          "[straggler]") {
  // 10 member slices and 2 spares, 3 learners: slices [0, 4), [4, 7), [7, 10).
  const cluster::Layout layout(4, 1, {{"a", 12}}, 2);
  Bench b(layout, 7);
  TransientStragglers model(
      parse<TransientStragglersConfig>({{"mtbe", "1h"}, {"duration", "10m"},
                                        {"slowdown", {{"dist", "exponential"}, {"mean", 0.1}}},
                                        {"domain", "learner"}, {"learners", 3}}),
      "stragglers.l");
  b.run(model, 3 * 86400);
  REQUIRE(model.episodes() > 100);
  // Every change is a whole-slice speed (scale) on a member slice; the starts
  // of one episode cover exactly one learner's share, with one factor.
  std::map<double, std::vector<Record>> starts;
  for (const Record& r : b.rec.records) {
    CHECK(r.target.scope == cluster::SlowdownScope::kSlice);
    CHECK(r.target.id < 10);
    CHECK(r.mode == cluster::SlowdownMode::kScale);
    if (r.kind == SlowdownChangeKind::kAdded) starts[r.t].push_back(r);
  }
  const std::vector<std::pair<uint32_t, uint32_t>> shares = {{0, 4}, {4, 7}, {7, 10}};
  for (const auto& [t, rs] : starts) {
    INFO("episode at " << t);
    const uint32_t first = rs.front().target.id;
    const auto share = std::find_if(shares.begin(), shares.end(),
                                    [&](const auto& s) { return s.first == first; });
    REQUIRE(share != shares.end());
    REQUIRE(rs.size() == share->second - share->first);
    for (size_t i = 0; i < rs.size(); ++i) {
      CHECK(rs[i].target.id == first + i);
      CHECK(rs[i].factor == rs.front().factor);
    }
  }
  // At the end, the slices of one learner share one slowdown.
  for (const auto& [first, end] : shares) {
    for (uint32_t s = first; s < end; ++s) {
      CHECK(b.state.slowdown().slice_slowdown(s) == b.state.slowdown().slice_slowdown(first));
    }
  }
}

TEST_CASE("domain learner needs learners that fit the member slices", "[straggler]") {
  using Catch::Matchers::Contains;
  const auto error = [](json model) {
    try {
      parse<TransientStragglersConfig>(model);
    } catch (const scenario::ScenarioError& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  const json base = {{"mtbe", "1h"}, {"duration", "1m"}, {"factor", 1.1}};
  json no_count = base;
  no_count["domain"] = "learner";
  CHECK_THAT(error(no_count), Contains("stragglers.0.learners") && Contains("needs"));
  json stray = base;
  stray["learners"] = 4;
  CHECK_THAT(error(stray), Contains("stragglers.0.learners") && Contains("only for domain"));
}

TEST_CASE("paper-heterogeneous: k8, k1 and k1-grace face the same per-learner speeds",
          "[straggler]") {
  const std::string file =
      (std::filesystem::path(GOODSIM_SOURCE_DIR) / "scenarios" / "paper-heterogeneous.json")
          .string();
  json doc = scenario::load_json_file(file);
  doc["horizon"] = "6h";
  const PreparedScenario p = testing::prepare_doc(doc, file);
  REQUIRE(p.policies.size() == 3);
  const auto [k8, k8_fp] = run_with_observer(p, 0, 1);
  const auto [k1, k1_fp] = run_with_observer(p, 1, 1);
  const auto [grace, grace_fp] = run_with_observer(p, 2, 1);
  // Learner episodes: whole-slice speeds on the 8 slices of one learner.
  const auto learner_changes = std::count_if(k8.begin(), k8.end(), [](const Record& r) {
    return r.mode == cluster::SlowdownMode::kScale && r.kind == SlowdownChangeKind::kAdded &&
           r.factor != 1.18;
  });
  CHECK(learner_changes > 8 * 20);
  CHECK(learner_changes % 8 == 0);
  CHECK(k8 == k1);
  CHECK(k1 == grace);
  CHECK(k8_fp != k1_fp);
  CHECK(k1_fp != grace_fp);
}

}  // namespace
}  // namespace goodsim::models::straggler
