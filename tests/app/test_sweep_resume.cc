// goodsim sweep survives kill -9: the goodsim binary runs as a child process,
// is killed once some rows exist, a torn last line is added, and --resume
// must finish with exactly the files of an uninterrupted sweep.
#include <catch2/catch.hpp>
#include <chrono>
#include <sstream>
#include <thread>

#include "app/sweep/sweep.h"
#include "tests/app/test_sweep_support.h"

namespace goodsim::app::sweep {
namespace {

TEST_CASE("sweep: --resume after SIGKILL gives exactly the uninterrupted rows", "[app][sweep]") {
  testing::ScratchDir dir("sweep-resume");
  // ~4000 failures, ~15 ms per policy run: time enough to kill the child mid-sweep.
  const std::string scen =
      testing::write_json(dir / "s.json", testing::two_policy_scenario("120d", 1024));
  const std::string out = dir / "killed";
  std::vector<std::string> args = {"sweep",   scen, "--vary", "policies.0.restart_time=2m,10m",
                                   "--seeds", "6",  "--out",  out,
                                   "-q",      "-j", "1"};
  const pid_t pid = testing::spawn_goodsim(args, dir / "log.txt");
  REQUIRE(pid > 0);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (testing::count_lines(out + "/results.csv") < 4 &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ::kill(pid, SIGKILL);
  REQUIRE(testing::wait_exit(pid) == 128 + SIGKILL);
  const size_t rows_at_kill = testing::count_lines(out + "/results.csv") - 1;
  CHECK(rows_at_kill >= 3);
  REQUIRE(rows_at_kill < 24);  // killed mid-sweep, not after
  std::ofstream(out + "/results.csv", std::ios::app) << "1,10m,4,fa";  // a torn write

  args.back() = "2";  // -j 2
  args.push_back("--resume");
  const int rc = testing::run_goodsim(args, dir / "log.txt");
  INFO(testing::read_text(dir / "log.txt"));
  REQUIRE(rc == 0);

  SweepOptions o;
  o.scenario = scen;
  o.vary = {"policies.0.restart_time=2m,10m"};
  o.seeds = 6;
  o.jobs = 2;
  o.out_dir = dir / "straight";
  std::ostringstream sink;
  REQUIRE(sweep_command(o, sink, sink, Progress::Mode::kOff) == 0);
  for (const char* f : {"results.csv", "summary.csv", "paired.csv"}) {
    INFO(f);
    CHECK(testing::read_text(out + "/" + f) ==
          testing::read_text(dir / ("straight/" + std::string(f))));
  }
  CHECK(testing::count_lines(out + "/results.csv") == 25);
}

}  // namespace
}  // namespace goodsim::app::sweep
