// Accounting by each chip's own speed (docs/metrics.md): the worked example of
// two slices in one synchronous group, one 20% slower, through real runs; and
// lost work booked exactly when a decoupled_diloco learner fails while a
// slowdown is active (it used to overdraw the productive category and abort).
#include <catch2/catch.hpp>

#include <string>

#include "models/policy/chip_time_ledger.h"
#include "models/policy/data_parallel.h"
#include "tests/support/harness.h"
#include "tests/support/scenarios.h"

namespace goodsim::models {
namespace {

// Chip-seconds of a badput category of `r`.
double badput(const output::PolicyResult& r, const std::string& category) {
  for (const auto& [name, chip_s] : r.badput) {
    if (name == category) return chip_s;
  }
  FAIL("no badput category " << category);
  return 0;
}

// 2 slices of 4 chips, base step 10 s; slice 1 is 20% slower; the gradient
// all-reduce is not overlapped and takes 1e11 B x 8 / 800 Gbit/s = 1 s.
// A step takes 10 x 1.2 + 1 = 13 s; 100 steps in 1,300 s.
nlohmann::json two_slice_example(const std::string& policy) {
  return {{"name", "two-slices"},
          {"seed", 1},
          {"horizon", "1300s"},
          {"cluster", {{"chips", 8}, {"chips_per_host", 4}, {"hosts_per_slice", 1}}},
          {"job", {{"params", 1e9}, {"tokens_per_step", 1e6}, {"step_time", "10s"},
                   {"gradient_bytes", 1e11}, {"intra_site_bandwidth", "800Gbps"},
                   {"comm_overlap", 0}}},
          {"stragglers", {{{"type", "hardware_generations"},
                           {"generations", {{{"name", "older"}, {"first_slice", 1},
                                             {"slices", 1}, {"factor", 1.2}}}}}}},
          {"policies", {{{"name", "p"}, {"type", policy}}}}};
}

TEST_CASE("two slices, one 20% slower: each chip is productive at its own speed",
          "[models][ledger][straggler]") {
  // Per step: a chip of the fast slice computes 10 s, waits 2 s for the slow
  // slice and 1 s for the all-reduce; a chip of the slow slice computes 12 s
  // and waits 1 s. Over 100 steps on 4 + 4 chips:
  //   productive     4 x 100 x (10 + 12) = 8,800 chip-s
  //   straggler_wait 4 x 100 x 2         =   800 chip-s
  //   sync_wait      8 x 100 x 1         =   800 chip-s
  // The split is in whole chip units (1/65,536 chip) rounded down, so each
  // figure may be short by up to 1,300 / 65,536 chip-s (0.02).
  const double unit = 1300.0 / static_cast<double>(policy::kChipScale);
  for (const char* type : {"data_parallel", "elastic_data_parallel"}) {
    INFO(type);
    const auto prepared = testing::prepare_doc(two_slice_example(type));
    const output::PolicyResult r = run_policy(prepared, 0, 1, nullptr);
    CHECK(r.steps >= 99);  // the 100th ends at the horizon, up to clock rounding
    CHECK(r.goodput * 8 * 1300 == Approx(8800).margin(unit));
    CHECK(badput(r, "straggler_wait") == Approx(800).margin(2 * unit));
    CHECK(badput(r, "sync_wait") == Approx(800).margin(2 * unit));
    CHECK(badput(r, "lost_work") == 0.0);
    CHECK(badput(r, "idle") == 0.0);
  }
}

TEST_CASE("the step in flight at a failure loses exactly what it charged",
          "[models][ledger][dp]") {
  // data_parallel (perfect checkpoints) on 2 slices of 4 chips, 1 s base
  // steps, slice 1 25% slower: 1.25 s steps, both slices charging
  // floor(4 x 65,536 x (1 + 1.25) / 1.25) = 471,859 productive chip units.
  // Slice 0 fails at 2 s, 0.75 s into the second step: exactly those 0.75 s
  // of charge become lost_work (5.4 chip-s; base x fraction x chips would say
  // 4.8).
  testing::Harness h(2, 4, testing::simple_job());
  h.cluster().add_slowdown(cluster::SlowdownTarget::slice(1), 1.25, cluster::SlowdownMode::kScale,
                           core::SimTime::zero());
  h.outage(2.0, 10.0, 0);
  policy::DataParallelConfig c;
  c.restart_time = core::Duration::seconds(60);
  policy::DataParallel dp(c);
  h.run(dp, 100);
  const auto& l = dp.ledger();
  CHECK(l.total(policy::Category::kLostWork) == policy::ChipNanos{471'859} * 750'000'000);
}

TEST_CASE("a decoupled learner failing under a slowdown books exactly its lost work",
          "[models][decoupled][ledger]") {
  // One site of 8 slices, all on a generation 27% slower; whole-site failures
  // every ~11 minutes. The first strikes 15.35 s in, mid-step on every learner:
  // the lost steps in flight must be exactly what the learners charged.
  nlohmann::json doc = {
      {"name", "slow-generation-site-failures"},
      {"seed", 1},
      {"horizon", "15868.5s"},
      {"cluster", {{"chips", 128}, {"chips_per_host", 2}, {"hosts_per_slice", 8}}},
      {"job", {{"params", 1e9}, {"tokens_per_step", 1e6}, {"step_time", "20.0877s"}}},
      {"failures", {{{"type", "domain_failures"}, {"domain", "site"}, {"mtbf", "672.271s"},
                     {"repair_time", "85.5728s"}}}},
      {"stragglers", {{{"type", "hardware_generations"},
                       {"generations", {{{"name", "older"}, {"first_slice", 0}, {"slices", 8},
                                         {"factor", 1.27}}}}}}},
      {"policies", {{{"name", "dd"}, {"type", "decoupled_diloco"}, {"learners", 5},
                     {"fragments", 2}, {"inner_steps", 294}, {"quorum", 3}, {"grace", true}}}}};
  const auto prepared = testing::prepare_doc(doc);
  const output::PolicyResult r = run_policy(prepared, 0, 1, nullptr);  // aborted before
  CHECK(r.failures > 0);
  CHECK(badput(r, "lost_work") > 0);
  // Everyone computes at the same (slower) speed: no straggler_wait but the
  // rounding of each learner's split (under one chip unit of the five).
  CHECK(badput(r, "straggler_wait") <= 5 * 15868.5 / static_cast<double>(policy::kChipScale));
}

}  // namespace
}  // namespace goodsim::models
