// data_parallel and elastic_data_parallel on scripted outages: every
// chip-second checked against numbers computed by hand (in the comments).
#include <catch2/catch.hpp>

#include "models/policy/data_parallel.h"
#include "models/policy/elastic_data_parallel.h"
#include "tests/support/harness.h"

namespace goodsim::models::policy {
namespace {

using testing::Harness;
using testing::seconds;

DataParallelConfig dp_config(double restart_s, double swap_s = 20) {
  DataParallelConfig c;
  c.restart_time = core::Duration::from_seconds(restart_s);
  c.swap_time = core::Duration::from_seconds(swap_s);
  return c;
}

TEST_CASE("data_parallel, one outage, perfect checkpoints: exact accounting", "[models][dp]") {
  // 4 slices x 4 chips; slice 1 down at 100.5 s for 50 s; restart 60 s.
  Harness h(4, 4, testing::simple_job());
  h.outage(100.5, 50, 1);
  DataParallel dp(dp_config(60));
  h.run(dp, 1000);
  const ChipTimeLedger& l = dp.ledger();
  // Run [0, 100.5): 100 steps; the half step in flight is lost on 16 chips.
  CHECK(seconds(l, Category::kLostWork) == Approx(8));
  // Wait for the repair [100.5, 150.5): 4 chips down, 12 idle.
  CHECK(seconds(l, Category::kDown) == Approx(200));
  CHECK(seconds(l, Category::kIdle) == Approx(600));
  // Restart [150.5, 210.5) on 16 chips.
  CHECK(seconds(l, Category::kReconfigure) == Approx(960));
  // Productive: 100 s + 789.5 s on 16 chips.
  CHECK(seconds(l, Category::kProductive) == Approx(16 * (100 + 789.5)));
  CHECK(dp.progress(h.sim().now()).steps == 100 + 789);
  CHECK(dp.outages().downtime() == core::Duration::seconds(110));
  CHECK(dp.outages().outages() == 1);
}

TEST_CASE("data_parallel, blocking checkpoints and a rollback: exact accounting", "[models][dp]") {
  // Checkpoint every 100 s of compute, 10 s blocking writes; slice 0 down at
  // 250.5 s for 20 s; restart 30 s; horizon 450 s.
  Harness h(4, 4, testing::simple_job());
  h.outage(250.5, 20, 0);
  DataParallelConfig c = dp_config(30);
  c.checkpoint.interval = CheckpointConfig::Interval::kFixed;
  c.checkpoint.fixed_interval = core::Duration::seconds(100);
  c.checkpoint.write_time = core::Duration::seconds(10);
  DataParallel dp(c);
  h.run(dp, 450);
  const ChipTimeLedger& l = dp.ledger();
  // Writes at [100, 110), [210, 220) and [400.5, 410.5).
  CHECK(seconds(l, Category::kCheckpoint) == Approx(3 * 160));
  // [220, 250.5) is rolled back to step 200.
  CHECK(seconds(l, Category::kLostWork) == Approx(30.5 * 16));
  CHECK(seconds(l, Category::kDown) == Approx(80));
  CHECK(seconds(l, Category::kIdle) == Approx(240));
  CHECK(seconds(l, Category::kReconfigure) == Approx(480));
  // [0,100) + [110,210) + [300.5,400.5) + [410.5,450) on 16 chips.
  CHECK(seconds(l, Category::kProductive) == Approx(16 * 339.5));
  CHECK(dp.progress(h.sim().now()).steps == 339);
}

TEST_CASE("data_parallel swaps in a spare instead of waiting for the repair", "[models][dp]") {
  // 5 slices, the last a spare; slice 2 down at 100.5 s for 1000 s; swap 20 s,
  // restart 30 s; horizon 500 s.
  Harness h(5, 4, testing::simple_job(), /*spare_slices=*/1);
  h.outage(100.5, 1000, 2);
  DataParallel dp(dp_config(30, 20));
  h.run(dp, 500);
  const ChipTimeLedger& l = dp.ledger();
  CHECK(seconds(l, Category::kIdle) == Approx(4 * 100.5));       // the spare until it swaps in
  CHECK(seconds(l, Category::kReconfigure) == Approx(16 * 50));  // swap 20 s + restart 30 s
  CHECK(seconds(l, Category::kDown) == Approx(4 * 399.5));
  CHECK(seconds(l, Category::kLostWork) == Approx(8));
  CHECK(seconds(l, Category::kProductive) == Approx(16 * (100 + 349.5)));
  CHECK(dp.learner_slices(0) == std::vector<cluster::SliceId>{0, 1, 3, 4});
}

TEST_CASE("data_parallel without failures: goodput is compute / (compute + writes)",
          "[models][dp]") {
  Harness h(2, 4, testing::simple_job());
  DataParallelConfig c = dp_config(30);
  c.checkpoint.interval = CheckpointConfig::Interval::kFixed;
  c.checkpoint.fixed_interval = core::Duration::seconds(90);
  c.checkpoint.write_time = core::Duration::seconds(10);
  DataParallel dp(c);
  h.run(dp, 1000);  // ten cycles of 90 s compute + 10 s write
  const ChipTimeLedger& l = dp.ledger();
  CHECK(seconds(l, Category::kProductive) / (8 * 1000.0) == Approx(0.9).epsilon(1e-12));
  CHECK(seconds(l, Category::kCheckpoint) == Approx(8 * 100));
}

// Downscale 10 s, upscale 20 s, restart 5 min, min 1 slice, checkpoints every 30 min.
ElasticDataParallelConfig edp_config() {
  ElasticDataParallelConfig c;
  c.elastic = {core::Duration::seconds(10), core::Duration::seconds(20),
               core::Duration::minutes(5), 1};
  c.checkpoint_interval = core::Duration::minutes(30);
  return c;
}

TEST_CASE("elastic_data_parallel, one outage: exact accounting", "[models][elastic]") {
  // 4 slices x 4 chips, 1000 tokens per step (250 per slice); slice 3 down at
  // 100.5 s for 200 s; downscale 10 s, upscale 20 s.
  Harness h(4, 4, testing::simple_job(1000));
  h.outage(100.5, 200, 3);
  ElasticDataParallel edp(edp_config());
  h.run(edp, 1000);
  const ChipTimeLedger& l = edp.ledger();
  CHECK(seconds(l, Category::kLostWork) == Approx(8));                 // half step on 16 chips
  CHECK(seconds(l, Category::kReconfigure) == Approx(12 * 10 + 16 * 20));
  CHECK(seconds(l, Category::kDown) == Approx(4 * 200));
  // [0,100) on 16 chips, [110.5,300.5) on 12, [320.5,1000) on 16.
  CHECK(seconds(l, Category::kProductive) == Approx(16 * 100 + 12 * 190 + 16 * 679.5));
  const Progress p = edp.progress(h.sim().now());
  CHECK(p.steps == 100 + 190 + 679);
  CHECK(p.tokens == Approx(100 * 1000 + 190 * 750 + 679 * 1000));
  CHECK(edp.outages().downtime() == core::Duration::seconds(30));
  CHECK(edp.outages().outages() == 2);
}

TEST_CASE("elastic_data_parallel below min_slices falls back to a checkpoint restart",
          "[models][elastic]") {
  // 2 slices, min 2: slice 0 down at 250.5 s for 30 s. Checkpoints every
  // 100 s of wall time; restart 60 s once both are back.
  Harness h(2, 4, testing::simple_job(1000));
  h.outage(250.5, 30, 0);
  ElasticDataParallelConfig c;
  c.elastic = {core::Duration::seconds(10), core::Duration::seconds(20),
               core::Duration::seconds(60), 2};
  c.checkpoint_interval = core::Duration::seconds(100);
  ElasticDataParallel edp(c);
  h.run(edp, 500);
  const ChipTimeLedger& l = edp.ledger();
  // Rolled back to the checkpoint at 200 s: [200, 250.5) lost on 8 chips.
  CHECK(seconds(l, Category::kLostWork) == Approx(8 * 50.5));
  CHECK(seconds(l, Category::kReconfigure) == Approx(8 * 60));   // [280.5, 340.5)
  CHECK(seconds(l, Category::kDown) == Approx(4 * 30));
  CHECK(seconds(l, Category::kIdle) == Approx(4 * 30));
  CHECK(seconds(l, Category::kProductive) == Approx(8 * (200 + 159.5)));
  CHECK(edp.progress(h.sim().now()).steps == 200 + 159);
}

TEST_CASE("elastic_data_parallel takes in and gives back scavenged slices", "[models][elastic]") {
  // 4 slices x 4 chips, 250 tokens per slice step; slices 2-3 are present
  // [100, 200) s; downscale 10 s, upscale 20 s. Slice 3 also fails at 250 s
  // for 20 s while lent out: only its chips' down time changes.
  Harness h(4, 4, testing::simple_job(1000));
  h.outage(250, 20, 3);
  ElasticDataParallelConfig c = edp_config();
  c.schedule = {{2, 4, core::Duration::seconds(100), core::Duration::seconds(200)}};
  ElasticDataParallel edp(c);
  h.run(edp, 300);
  const ChipTimeLedger& l = edp.ledger();
  // [0, 100) on 8 chips, upscale [100, 120) on 16, [120, 200) on 16,
  // downscale [200, 210) on 8, [210, 300) on 8.
  CHECK(seconds(l, Category::kProductive) == Approx(8 * 100 + 16 * 80 + 8 * 90));
  CHECK(seconds(l, Category::kReconfigure) == Approx(16 * 20 + 8 * 10));
  CHECK(seconds(l, Category::kDown) == Approx(4 * 20));
  CHECK(seconds(l, Category::kIdle) == Approx(8 * 100 + 8 * 100 - 4 * 20));
  CHECK(seconds(l, Category::kLostWork) == 0);
  const Progress p = edp.progress(h.sim().now());
  CHECK(p.steps == 100 + 80 + 90);
  CHECK(p.tokens == Approx(100 * 500 + 80 * 1000 + 90 * 500));
  CHECK_FALSE(edp.slice_allocated(3));
  CHECK(edp.slice_allocated(1));
}

}  // namespace
}  // namespace goodsim::models::policy
