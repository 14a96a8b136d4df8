// Scavenged capacity (docs/scavenging.md): each mechanism against numbers
// computed by hand - the synchronous resize of elastic_data_parallel, the
// per-step WAN all-reduce while the job spans sites, a Decoupled DiLoCo
// learner joining at a far site, the loss model fed stretch by stretch of
// constant batch - and scenarios/paper-scavenging.json measured in time to a
// target loss.
#include <catch2/catch.hpp>

#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "models/loss_tracker.h"
#include "models/policy/decoupled_diloco.h"
#include "models/policy/elastic_data_parallel.h"
#include "models/runner.h"
#include "sim/scenario/json_file.h"
#include "tests/support/decoupled_config.h"
#include "tests/support/harness.h"
#include "tests/support/scenarios.h"

namespace goodsim::models {
namespace {

using policy::Category;
using policy::Progress;
using policy::ElasticDataParallel;
using policy::ElasticDataParallelConfig;
using testing::Harness;
using testing::seconds;

core::Duration secs(double s) { return core::Duration::from_seconds(s); }

// Slices 2-3 present [100, 200) s; a synchronous resize of stop 1 s,
// checkpoint 2 s, reshard 3 s and restart 4 s; elastic pauses 10 s / 20 s
// (which a scheduled change must not use), min_slices `min`, restart 60 s,
// periodic checkpoints every 30 min (none within these runs).
ElasticDataParallelConfig resize_config(uint32_t min_slices) {
  ElasticDataParallelConfig c;
  c.elastic = {secs(10), secs(20), secs(60), min_slices};
  c.checkpoint_interval = core::Duration::minutes(30);
  c.schedule = {{2, 4, secs(100), secs(200)}};
  c.scheduled_resize = policy::ScheduledResize{secs(1), secs(2), secs(3), secs(4)};
  return c;
}

TEST_CASE("a scheduled resize costs stop + checkpoint + reshard + restart",
          "[models][elastic][scavenging]") {
  // 4 slices x 4 chips, 250 tokens per slice step. Join at 100 s: one pause
  // of 1 + 2 + 3 + 4 = 10 s on 16 chips; [110, 200) 90 steps on 16 chips;
  // leave at 200 s: 10 s on 8 chips; [210, 300) 90 steps on 8 chips.
  Harness h(4, 4, testing::simple_job(1000));
  ElasticDataParallel edp(resize_config(1));
  h.run(edp, 300);
  const policy::ChipTimeLedger& l = edp.ledger();
  CHECK(seconds(l, Category::kReconfigure) == Approx(16 * 10 + 8 * 10));
  CHECK(seconds(l, Category::kProductive) == Approx(8 * 100 + 16 * 90 + 8 * 90));
  CHECK(seconds(l, Category::kIdle) == Approx(8 * 100 + 8 * 100));
  CHECK(seconds(l, Category::kLostWork) == 0);
  const Progress p = edp.progress(h.sim().now());
  CHECK(p.steps == 100 + 90 + 90);
  CHECK(p.tokens == Approx(100 * 500 + 90 * 1000 + 90 * 500));
}

TEST_CASE("a scheduled resize writes a checkpoint the fallback restart returns to",
          "[models][elastic][scavenging]") {
  // As above with min_slices 2: slice 0 fails at 250.5 s for 20 s, leaving
  // one slice, so the job falls back to its last checkpoint: the one the
  // leave wrote at 200 s (step 190), not step 0. Lost: [210, 250.5) on 8
  // chips. Down [250.5, 270.5), restart [270.5, 330.5) on 8 chips, then
  // [330.5, 400) 69 steps and half a step in flight.
  Harness h(4, 4, testing::simple_job(1000));
  h.outage(250.5, 20, 0);
  ElasticDataParallel edp(resize_config(2));
  h.run(edp, 400);
  const policy::ChipTimeLedger& l = edp.ledger();
  CHECK(seconds(l, Category::kLostWork) == Approx(8 * 40.5));
  CHECK(seconds(l, Category::kReconfigure) == Approx(16 * 10 + 8 * 10 + 8 * 60));
  CHECK(seconds(l, Category::kDown) == Approx(4 * 20));
  CHECK(seconds(l, Category::kProductive) == Approx(8 * 100 + 16 * 90 + 8 * 69.5));
  CHECK(edp.progress(h.sim().now()).steps == 190 + 69);
}

TEST_CASE("while the job spans sites every step pays the WAN ring all-reduce",
          "[models][elastic][scavenging]") {
  // Slices 0-1 in site a, 2-3 in site b, one 10 Gbps link of 10 ms. A ring
  // over S = 2 sites sends 2 B (1 - 1/S) = B = 2e9 bytes per hop: 16e9 bits
  // / 10e9 bit/s + 10 ms = 1.61 s, so a step takes 1 + 1.61 = 2.61 s while
  // slices 2-3 take part. [0, 100): 100 steps of 1 s; join at 100 s, pause
  // 10 s; [110, 1000): floor(890 / 2.61) = 340 steps (340 x 2.61 = 887.4).
  Harness h(4, 4, testing::simple_job(1000), 0, {{"a", 2}, {"b", 2}});
  h.network().add_link(0, 1, 10e9, core::Duration::millis(10));
  ElasticDataParallelConfig c = resize_config(1);
  c.schedule = {{2, 4, secs(100), secs(5000)}};
  ElasticDataParallel edp(c);
  h.run(edp, 1000);
  CHECK(edp.progress(h.sim().now()).steps == 100 + 340);
  // While they take part, 16 chips wait on the network 1.61 s of every 2.61 s.
  CHECK(seconds(edp.ledger(), Category::kSyncWait) == Approx(16 * 890 * 1.61 / 2.61));
}

TEST_CASE("a learner joining at a far site pulls its state over the WAN",
          "[models][decoupled][scavenging]") {
  // 4 learners of one slice; learner 3's slice is in site b behind a 100
  // Gbps link of 10 ms. It joins at 100 s: a 30 s restart plus the pull of
  // 1e11 bytes from a live peer in site a, 10 ms + 8e11 / 1e11 s = 8.01 s
  // (inside its site it would be 1 s). It leaves at 900.5 s.
  Harness h(4, 4, testing::simple_job(), 0, {{"a", 3}, {"b", 1}});
  h.network().add_link(0, 1, 100e9, core::Duration::millis(10));
  policy::DecoupledDilocoConfig c = testing::decoupled_config(4, 4, 4, 2, 1);
  c.schedule = {{3, secs(100), secs(900.5)}};
  policy::DecoupledDiloco d(c);
  h.run(d, 1000);
  CHECK(seconds(d.ledger(), Category::kReconfigure) == Approx(4 * 38.01));
  CHECK(d.syncer_stats().rejoins == 1);
  // Learner 3 trained [138.01, 900.5): 762 whole steps.
  CHECK(d.learner(3).group().steps(h.sim().now()) == 762);
}

// Records what a policy reports to its loss model.
class RecordingLoss final : public loss::LossModel {
 public:
  std::vector<std::pair<uint64_t, double>> steps;  // (steps, batch tokens) per report
  void start(const loss::TrainingShape&, core::Rng) override { steps.clear(); }
  void on_inner_steps(uint32_t, uint64_t n, double batch) override { steps.emplace_back(n, batch); }
  void on_merge(uint32_t, const std::vector<loss::Contribution>&) override {}
  void on_receive(uint32_t, uint32_t) override {}
  void on_rejoin(uint32_t) override {}
  double loss() const override { return 10; }
};

TEST_CASE("elastic data-parallel reports each stretch of constant batch to the loss model",
          "[models][elastic][scavenging]") {
  // Elastic pauses (no scheduled resize, so no checkpoint at the changes):
  // [0, 100) 100 steps at 500 tokens, upscale 20 s, [120, 200) 80 steps at
  // 1000, downscale 10 s, [210, 300) 90 steps at 500. The end of the run
  // reports all three, each with its own batch (the mean batch, 205000 / 270,
  // would be discounted once at a size the job never ran).
  Harness h(4, 4, testing::simple_job(1000));
  auto model = std::make_unique<RecordingLoss>();
  RecordingLoss& rec = *model;
  LossTracker tracker(std::move(model), std::nullopt, h.sim());
  h.ctx().loss = &tracker;
  ElasticDataParallelConfig c = resize_config(1);
  c.scheduled_resize.reset();
  ElasticDataParallel edp(c);
  h.run(edp, 300);
  using Report = std::pair<uint64_t, double>;
  CHECK(rec.steps == std::vector<Report>{{100, 500.0}, {80, 1000.0}, {90, 500.0}});
}

TEST_CASE("paper-scavenging: extra compute never slows Decoupled DiLoCo to the target",
          "[models][decoupled][scavenging]") {
  const std::string file =
      (std::filesystem::path(GOODSIM_SOURCE_DIR) / "scenarios" / "paper-scavenging.json").string();
  nlohmann::json doc = scenario::load_json_file(file);
  nlohmann::json policies = nlohmann::json::array();
  for (nlohmann::json p : doc["policies"]) {
    if (p["type"] != "decoupled_diloco") continue;
    p["rejoin_overhead"] = "0s";
    p["state_bytes"] = 0;
    policies.push_back(p);
  }
  doc["policies"] = policies;
  const auto prepared = testing::prepare_doc(doc, file);
  const output::RunResult run = run_scenario(prepared, prepared.scenario.seed, nullptr);
  REQUIRE(run.policies.size() == 5);
  REQUIRE(run.policies[0].name == "decoupled-base");
  REQUIRE(run.policies[0].time_to_target_s.has_value());
  const double base = *run.policies[0].time_to_target_s;
  for (size_t i = 1; i < run.policies.size(); ++i) {
    INFO(run.policies[i].name);
    REQUIRE(run.policies[i].time_to_target_s.has_value());
    CHECK(*run.policies[i].time_to_target_s <= base);
  }
}

}  // namespace
}  // namespace goodsim::models
