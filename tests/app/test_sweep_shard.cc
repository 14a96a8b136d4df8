// goodsim sweep --shard i/n and sweep-merge: shards merged give exactly the
// files of the unsharded sweep; missing shards, shards of another sweep,
// incomplete shards and rows in the wrong shard are refused (exit 2).
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <sstream>

#include "app/sweep/merge.h"
#include "app/sweep/shard.h"
#include "app/sweep/sweep.h"
#include "sim/scenario/error.h"
#include "tests/app/test_sweep_support.h"

namespace goodsim::app::sweep {
namespace {

SweepOptions options(const std::string& scenario, const std::string& out) {
  SweepOptions o;
  o.scenario = scenario;
  o.vary = {"policies.0.restart_time=1m,10m,20m"};
  o.seeds = 4;
  o.jobs = 1;
  o.out_dir = out;
  return o;
}

int sweep(const SweepOptions& o) {
  std::ostringstream sink;
  return sweep_command(o, sink, sink, Progress::Mode::kOff);
}

int merge(const std::vector<std::string>& dirs, const std::string& out) {
  std::ostringstream sink;
  return merge_command(MergeOptions{dirs, out, true}, sink);
}

// Runs the n shards of `o` into DIR/shard-i; returns their directories.
std::vector<std::string> run_shards(SweepOptions o, const testing::ScratchDir& dir, size_t n,
                                    const std::string& name) {
  std::vector<std::string> dirs;
  for (size_t i = 0; i < n; ++i) {
    o.shard = fmt::format("{}/{}", i, n);
    o.out_dir = dir / fmt::format("{}-{}", name, i);
    REQUIRE(sweep(o) == 0);
    dirs.push_back(*o.out_dir);
  }
  return dirs;
}

void require_same_files(const std::string& a, const std::string& b) {
  for (const char* f : {"results.csv", "summary.csv", "paired.csv", "sweep.json"}) {
    INFO(f);
    CHECK(testing::read_text(a + "/" + f) == testing::read_text(b + "/" + f));
  }
}

TEST_CASE("shard: i/n is parsed strictly, and every run has exactly one shard", "[app][sweep]") {
  CHECK(parse_shard("2/5").index == 2);
  CHECK(parse_shard("2/5").count == 5);
  for (const char* bad : {"5/5", "1", "a/3", "1/0", "-1/3", "1/3x", "/3", "0/100001"}) {
    INFO(bad);
    CHECK_THROWS_WITH(parse_shard(bad), Catch::Contains("expected i/n"));
  }
  Replication fixed{1, 7, std::nullopt, 7};
  Replication adaptive{1, 7, 0.01, 50};
  for (const Replication& r : {fixed, adaptive}) {
    for (size_t p = 0; p < 5; ++p) {
      for (size_t k = 0; k < 50; ++k) {
        size_t owners = 0;
        for (size_t i = 0; i < 3; ++i) owners += Shard{i, 3}.owns(p, k, r) ? 1 : 0;
        CHECK(owners == 1);
      }
    }
  }
}

TEST_CASE("sweep-merge: 3 shards merged are byte-identical to the unsharded sweep",
          "[app][sweep]") {
  testing::ScratchDir dir("sweep-shards");
  const std::string scen = testing::write_json(dir / "s.json", testing::two_policy_scenario("30d"));
  SECTION("fixed replication") {
    REQUIRE(sweep(options(scen, dir / "whole")) == 0);
    const std::vector<std::string> shards = run_shards(options(scen, ""), dir, 3, "fixed");
    REQUIRE(merge(shards, dir / "merged") == 0);
    require_same_files(dir / "whole", dir / "merged");
    CHECK(testing::count_lines(shards[0] + "/results.csv") == 1 + 4 * 2);  // runs 0, 3, 6, 9
    CHECK_FALSE(std::filesystem::exists(shards[0] + "/summary.csv"));
  }
  SECTION("adaptive replication") {
    SweepOptions o = options(scen, dir / "whole");
    o.seeds = 3;
    o.ci_target = 0.01;
    o.max_seeds = 12;
    REQUIRE(sweep(o) == 0);
    REQUIRE(merge(run_shards(o, dir, 3, "adaptive"), dir / "merged") == 0);
    require_same_files(dir / "whole", dir / "merged");
  }
}

TEST_CASE("sweep-merge: refuses missing, foreign, incomplete and misplaced shards",
          "[app][sweep]") {
  testing::ScratchDir dir("sweep-merge-bad");
  const std::string scen = testing::write_json(dir / "s.json", testing::two_policy_scenario("30d"));
  const std::vector<std::string> shards = run_shards(options(scen, ""), dir, 3, "a");
  SweepOptions other = options(scen, "");
  other.seeds = 5;
  const std::vector<std::string> foreign = run_shards(other, dir, 3, "b");
  const std::string log = dir / "log.txt";
  const auto refused = [&](std::vector<std::string> args, const std::string& message) {
    args.insert(args.begin(), "sweep-merge");
    args.insert(args.end(), {"--out", dir / "merged"});
    CHECK(testing::run_goodsim(args, log) == 2);
    CHECK_THAT(testing::read_text(log), Catch::Contains(message));
    CHECK_FALSE(std::filesystem::exists(dir / "merged"));
  };
  refused({shards[0], shards[2]}, "shard(s) 1 of 3 missing");
  refused({shards[0], foreign[1], shards[2]}, "a shard of another sweep");
  refused({shards[0], shards[1], shards[1], shards[2]}, "shard 1 is also given as");
  refused({shards[0], dir / "s.json"}, "sweep.json");
  // A shard cut short (its last run's rows lost) must be finished first.
  std::string text = testing::read_text(shards[1] + "/results.csv");
  text.erase(text.rfind('\n', text.size() - 2) + 1);
  std::ofstream(shards[1] + "/results.csv", std::ios::binary) << text;
  refused({shards[0], shards[1], shards[2]}, "shard 1 is incomplete");
  // Rows of shard 0 copied into shard 2.
  const std::string rows0 = testing::read_text(shards[0] + "/results.csv");
  std::ofstream(shards[2] + "/results.csv", std::ios::app) << rows0.substr(rows0.find('\n') + 1);
  refused({shards[0], shards[2], shards[1]}, "a run of another shard");
}

TEST_CASE("sweep --shard: resuming a shard checks it is the same shard", "[app][sweep]") {
  testing::ScratchDir dir("sweep-shard-resume");
  const std::string scen = testing::write_json(dir / "s.json", testing::two_policy_scenario("30d"));
  SweepOptions o = options(scen, dir / "s");
  o.shard = "1/3";
  REQUIRE(sweep(o) == 0);
  o.resume = true;
  o.shard = "2/3";
  CHECK_THROWS_WITH(sweep(o), Catch::Contains("differs in: shard"));
  o.shard.reset();
  CHECK_THROWS_WITH(sweep(o), Catch::Contains("differs in: shard"));
  o.shard = "1/3";
  CHECK(sweep(o) == 0);
}

}  // namespace
}  // namespace goodsim::app::sweep
