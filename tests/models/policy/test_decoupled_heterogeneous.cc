// Decoupled DiLoCo on heterogeneous hardware (docs/decoupled_diloco.md, "The
// paper's comparisons"): a learner's speed is its own, so stepping at it is
// productive and only waiting for other learners is badput (docs/metrics.md,
// "Learners of Decoupled DiLoCo"). Hand-computed two-learner cases, the
// per-learner summary fields, per-learner against per-slice variance, and the
// shipped scenarios/paper-heterogeneous.json.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "models/policy/decoupled_diloco.h"
#include "models/runner.h"
#include "sim/scenario/json_file.h"
#include "tests/support/decoupled_config.h"
#include "tests/support/harness.h"
#include "tests/support/scenarios.h"

namespace goodsim::models::policy {
namespace {

using testing::Harness;

double field(const output::LearnerResult& r, const char* key) {
  const std::optional<double> v = r.extra.number(key);
  REQUIRE(v.has_value());
  return *v;
}

// Two learners of one 4-chip slice each, H = P = 24, tau = 2; learner 1's
// slice is an older generation 18% slower. The job's fragments take S =
// pull + broadcast, about 1.7 ms here, far inside tau steps. The ledger keeps
// a running group's split in whole units of 1/65536 chip, rounded down
// (chip_time_ledger.h): the slow learner's 1.18 s steps leave it one unit of
// its 4 chips short of productive, charged sync_wait.
constexpr double kUnit = 1.0 / 65536;
struct TwoLearners {
  static constexpr double kHorizon = 7200.5;
  Harness h{2, 4, testing::simple_job()};
  DecoupledDiloco d;
  std::vector<output::LearnerResult> learners;

  explicit TwoLearners(uint32_t quorum) : d(testing::decoupled_config(2, 24, 24, 2, quorum)) {
    h.cluster().add_slowdown(cluster::SlowdownTarget::slice(1), 1.18,
                             cluster::SlowdownMode::kScale, core::SimTime::zero());
    const core::SimTime end = h.run(d, kHorizon);
    learners = d.learner_results(end);
  }
  // Sum over learners of goodput x chips, over all chips.
  double learners_goodput() const {
    double sum = 0;
    for (const auto& r : learners) sum += r.goodput * r.chips;
    return sum / 8;
  }
  double goodput() const {
    return d.ledger().chip_seconds(Category::kProductive) / (8 * kHorizon);
  }
};

TEST_CASE("two learners, one 18% slower, K = 1: each steps at its own pace, no wait",
          "[models][decoupled][hetero]") {
  // A learner's own report completes its quorum and the merge reaches it in
  // S < tau steps: neither ever waits, and both are productive all the time
  // (goodput 1 - sync costs; the sync is fully overlapped here).
  const TwoLearners t(1);
  for (const auto& r : t.learners) {
    INFO("learner " << r.index);
    CHECK(r.goodput >= 1.0 - kUnit / 4 - 1e-12);
    CHECK(field(r, "wait_s") == 0);
  }
  CHECK(t.learners[0].goodput == Approx(1.0).epsilon(1e-12));
  CHECK(t.d.ledger().chip_seconds(Category::kSyncWait) <= kUnit * TwoLearners::kHorizon + 1e-9);
  CHECK(t.d.ledger().total(Category::kStragglerWait) == 0);
  CHECK(t.learners_goodput() == Approx(t.goodput()).epsilon(1e-12));
  // The fast learner sets the syncer's clock: it is in every merge.
  CHECK(field(t.learners[0], "merges") == static_cast<double>(t.d.syncer_stats().rounds));
}

TEST_CASE("two learners, one 18% slower, K = 2: the fast one waits the speed gap",
          "[models][decoupled][hetero]") {
  // Each round merges when the slow learner reports (every 1.18 s); the fast
  // one reaches its sync point tau steps after its report, 1 s of compute
  // after the previous merge reached it, and waits the rest: 0.18 s per
  // round, so a share 0.18 / 1.18 of the time once its lead of tau steps is
  // built (the first ~11 steps; tolerance: tau + 1 steps). The merge's way
  // back (S) fits in the fast learner's tau steps after its report: all of
  // the wait is for the quorum (the slow learner), none for the transfer.
  const TwoLearners t(2);
  const double horizon = TwoLearners::kHorizon;
  const output::LearnerResult& fast = t.learners[0];
  const output::LearnerResult& slow = t.learners[1];
  const double wait = field(fast, "wait_s");
  CHECK(std::abs(wait - horizon * 0.18 / 1.18) <= 3.0);
  CHECK(std::abs(fast.goodput - 1 / 1.18) <= 3.0 / horizon);
  CHECK(field(slow, "wait_s") == 0);
  CHECK(slow.goodput >= 1.0 - kUnit / 4 - 1e-12);
  CHECK(field(fast, "wait_grace_s") == 0);
  const SyncerStats& s = t.d.syncer_stats();
  const double sync_s = s.sync_time.seconds_f() / static_cast<double>(s.rounds);
  CHECK(sync_s > 0);
  CHECK(sync_s < 0.18);
  CHECK(field(fast, "wait_transfer_s") == 0);
  CHECK(field(fast, "wait_quorum_s") == Approx(wait).epsilon(1e-12));
  // Every learner is in every round (K = M), and the per-learner fields add
  // up to the ledger.
  CHECK(field(fast, "merges") == static_cast<double>(s.rounds));
  CHECK(field(slow, "merges") == static_cast<double>(s.rounds));
  CHECK(std::abs(t.d.ledger().chip_seconds(Category::kSyncWait) - 4 * wait) <=
        kUnit * horizon + 1e-6);
  CHECK(t.learners_goodput() == Approx(t.goodput()).epsilon(1e-12));
}

TEST_CASE("a merge whose way back outlasts tau steps is a transfer wait", "[models][decoupled][hetero]") {
  // One learner alone (K = 1: its report is the quorum), fragments of 150 GB
  // each way at 800 Gbit/s: 1.5 s pull + 1.5 s broadcast = 3 s, longer than
  // its tau = 2 steps. Every hold is for the transfer.
  scenario::JobSpec job = testing::simple_job();
  job.gradient_bytes = 150e9 * 24;
  Harness h(1, 4, job);
  DecoupledDiloco d(testing::decoupled_config(1, 24, 24, 2, 1));
  const core::SimTime end = h.run(d, 600);
  const output::LearnerResult r = d.learner_results(end).at(0);
  CHECK(field(r, "wait_s") > 100);
  CHECK(field(r, "wait_transfer_s") == Approx(field(r, "wait_s")).epsilon(1e-12));
  CHECK(field(r, "wait_quorum_s") == 0);
  CHECK(field(r, "wait_grace_s") == 0);
}

// Four learners of two slices, K = 1, one-day horizon, transient slowdowns of
// `domain` (learner: the whole learner at once; slice: one slice).
nlohmann::json variance_doc(const std::string& domain) {
  nlohmann::json doc = testing::small_scenario("1d", "", "", "5m", 8, 4);
  doc["policies"] = {{{"name", "k1"}, {"type", "decoupled_diloco"}, {"learners", 4},
                      {"quorum", 1}}};
  nlohmann::json episodes = {{"type", "transient_stragglers"}, {"domain", domain},
                             {"mtbe", "10m"}, {"duration", "1m"},
                             {"slowdown", {{"dist", "exponential"}, {"mean", 0.1}}}};
  if (domain == "learner") episodes["learners"] = 4;
  doc["stragglers"] = nlohmann::json::array({episodes});
  return doc;
}

TEST_CASE("per-learner variance is the learner's speed; per-slice variance makes slices wait",
          "[models][decoupled][hetero]") {
  const auto run = [](const std::string& domain) {
    const PreparedScenario p = testing::prepare_doc(variance_doc(domain));
    return run_scenario(p, 3, nullptr).policies.at(0);
  };
  const auto badput = [](const output::PolicyResult& r, const std::string& key) {
    for (const auto& [k, v] : r.badput) {
      if (k == key) return v;
    }
    FAIL("no badput " << key);
    return 0.0;
  };
  const output::PolicyResult learner = run("learner");
  const output::PolicyResult slice = run("slice");
  const double capacity = 128.0 * 86400;
  // Each learner as one synchronous job: no slice waits for another.
  CHECK(badput(learner, "straggler_wait") < 1e-9 * capacity);
  CHECK(badput(slice, "straggler_wait") > 1e-3 * capacity);
  CHECK(learner.goodput > slice.goodput);
  for (const auto& r : learner.learners) CHECK(field(r, "wait_s") == 0);  // K = 1
}

// scenarios/paper-heterogeneous.json, shortened to 6 hours.
PreparedScenario paper_heterogeneous() {
  const std::string file =
      (std::filesystem::path(GOODSIM_SOURCE_DIR) / "scenarios" / "paper-heterogeneous.json")
          .string();
  nlohmann::json doc = scenario::load_json_file(file);
  doc["horizon"] = "6h";
  return testing::prepare_doc(doc, file);
}

TEST_CASE("paper-heterogeneous: the grace window changes who is merged, K = 8 waits",
          "[models][decoupled][hetero]") {
  const PreparedScenario p = paper_heterogeneous();
  const output::RunResult run = run_scenario(p, p.scenario.seed, nullptr);
  REQUIRE(run.policies.size() == 3);
  const output::PolicyResult& k8 = run.policies[0];
  const output::PolicyResult& k1 = run.policies[1];
  const output::PolicyResult& grace = run.policies[2];
  REQUIRE(k1.name == "k1");
  REQUIRE(grace.name == "k1-grace");
  // Merges per learner differ with the window. Without it a round merges at
  // its first report, so the other learners' reports of the round come late
  // (merged into the next round); with it the fast learners (and many of the
  // slow ones' reports) are in the quorum of the round itself.
  std::vector<double> m1, mg;
  for (const auto& r : k1.learners) m1.push_back(field(r, "merges"));
  for (const auto& r : grace.learners) mg.push_back(field(r, "merges"));
  CHECK(m1 != mg);
  for (size_t k = 0; k < 8; ++k) {
    INFO("learner " << k);
    CHECK(field(grace.learners[k], "quorum_merges") > 2 * field(k1.learners[k], "quorum_merges"));
    CHECK(field(grace.learners[k], "quorum_merges") <= field(grace.learners[k], "merges"));
  }
  // K = 1 never holds a learner, with or without the window; goodput is the same.
  for (const output::PolicyResult* r : {&k1, &grace}) {
    for (const auto& l : r->learners) CHECK(field(l, "wait_s") == 0);
  }
  CHECK(k1.goodput == grace.goodput);
  // K = 8: the fast generation (learners 0-3, dc-new) waits for the slow one.
  double fast_wait = 0, slow_wait = 0;
  for (const auto& r : k8.learners) (r.index < 4 ? fast_wait : slow_wait) += field(r, "wait_s");
  CHECK(fast_wait > 4 * 0.1 * 6 * 3600);
  CHECK(k8.goodput < k1.goodput);
}

}  // namespace
}  // namespace goodsim::models::policy
