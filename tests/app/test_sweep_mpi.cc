// goodsim sweep under mpirun (3 ranks, oversubscribed on localhost): the
// files are byte-identical to a one-process sweep, with fixed and adaptive
// replication; a worker rank killed with SIGKILL stops the job with a message
// naming it and its tasks, and --resume (with MPI and without) then finishes
// with the files of an uninterrupted sweep. Built only with GOODSIM_MPI
// (GOODSIM_MPIRUN is set by tests/CMakeLists.txt).
#include <dirent.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <sstream>
#include <thread>

#include "app/sweep/sweep.h"
#include "tests/app/test_sweep_support.h"

namespace goodsim::app::sweep {
namespace {

std::vector<std::string> mpirun(const std::vector<std::string>& goodsim_args) {
  std::vector<std::string> all = {GOODSIM_MPIRUN, "-n", "3", "--oversubscribe"};
  if (::geteuid() == 0) all.push_back("--allow-run-as-root");  // as in CI containers
  // Containers often forbid the cross-process memory reads of shared-memory
  // single-copy transfers; plain copies work everywhere.
  all.insert(all.end(), {"--mca", "btl_vader_single_copy_mechanism", "none"});
  all.push_back(GOODSIM_BINARY);
  all.insert(all.end(), goodsim_args.begin(), goodsim_args.end());
  return all;
}

int run_mpi(const std::vector<std::string>& goodsim_args, const std::string& log) {
  const pid_t pid = testing::spawn_process(mpirun(goodsim_args), log);
  return pid < 0 ? -1 : testing::wait_exit(pid);
}

std::vector<std::string> args(const std::string& scen, const std::string& out) {
  return {"sweep", scen, "--vary", "policies.0.restart_time=2m,10m", "--seeds", "6",
          "--out", out, "-q", "-j", "1"};
}

// The one-process sweep of the same definition, into DIR/straight.
void straight(const std::vector<std::string>& a, const testing::ScratchDir& dir,
              std::optional<double> ci_target = std::nullopt,
              std::optional<size_t> max_seeds = std::nullopt) {
  SweepOptions o;
  o.scenario = a[1];
  o.vary = {a[3]};
  o.seeds = std::stoul(a[5]);
  o.jobs = 2;
  o.ci_target = ci_target;
  o.max_seeds = max_seeds;
  o.out_dir = dir / "straight";
  std::ostringstream sink;
  REQUIRE(sweep_command(o, sink, sink, Progress::Mode::kOff) == 0);
}

void require_same_files(const std::string& a, const std::string& b) {
  for (const char* f : {"results.csv", "summary.csv", "paired.csv", "sweep.json"}) {
    INFO(f);
    CHECK(testing::read_text(a + "/" + f) == testing::read_text(b + "/" + f));
  }
}

// The pid of MPI rank `rank` of a goodsim writing to `out` (0 if none).
pid_t rank_pid(int rank, const std::string& out) {
  const std::string want = "OMPI_COMM_WORLD_RANK=" + std::to_string(rank);
  DIR* proc = ::opendir("/proc");
  pid_t found = 0;
  while (dirent* e = proc ? ::readdir(proc) : nullptr) {
    const std::string pid = e->d_name;
    if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string cmd = testing::read_text("/proc/" + pid + "/cmdline");
    if (cmd.find(GOODSIM_BINARY) != 0 || cmd.find(out) == std::string::npos) continue;
    std::string env = testing::read_text("/proc/" + pid + "/environ");
    for (char& c : env) c = c == '\0' ? '\n' : c;
    if (("\n" + env).find("\n" + want + "\n") != std::string::npos) found = std::stoi(pid);
  }
  if (proc) ::closedir(proc);
  return found;
}

// Starts the MPI sweep, kills rank 1 once some rows exist, and checks the
// job stopped naming it. Returns the rows written before the kill.
size_t kill_worker_mid_sweep(const std::vector<std::string>& a, const testing::ScratchDir& dir) {
  const std::string out = a[7], log = dir / "log.txt";
  const pid_t job = testing::spawn_process(mpirun(a), log);
  REQUIRE(job > 0);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  pid_t victim = 0;
  while ((victim == 0 || testing::count_lines(out + "/results.csv") < 5) &&
         std::chrono::steady_clock::now() < deadline) {
    if (victim == 0) victim = rank_pid(1, out);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  REQUIRE(victim > 0);
  ::kill(victim, SIGKILL);
  CHECK(testing::wait_exit(job) != 0);
  const std::string text = testing::read_text(log);
  INFO(text);
  CHECK_THAT(text, Catch::Contains("rank 1 (pid " + std::to_string(victim)));
  CHECK_THAT(text, Catch::Contains("died while running: point "));
  return testing::count_lines(out + "/results.csv") - 1;
}

TEST_CASE("sweep under mpirun -n 3: files identical to one process", "[app][sweep][mpi]") {
  testing::ScratchDir dir("sweep-mpi");
  const std::string scen = testing::write_json(dir / "s.json", testing::two_policy_scenario("30d"));
  SECTION("fixed replication") {
    const std::vector<std::string> a = args(scen, dir / "mpi");
    const std::string log = dir / "log.txt";
    REQUIRE(run_mpi(a, log) == 0);
    straight(a, dir);
    INFO(testing::read_text(log));
    require_same_files(dir / "mpi", dir / "straight");
  }
  SECTION("adaptive replication") {
    std::vector<std::string> a = args(scen, dir / "mpi");
    a[5] = "3";
    a.insert(a.end(), {"--ci-target", "0.01", "--max-seeds", "12"});
    REQUIRE(run_mpi(a, dir / "log.txt") == 0);
    straight(a, dir, 0.01, 12);
    require_same_files(dir / "mpi", dir / "straight");
  }
}

TEST_CASE("sweep under mpirun: a killed rank is named, --resume finishes the sweep",
          "[app][sweep][mpi]") {
  testing::ScratchDir dir("sweep-mpi-kill");
  // ~15 ms per policy run: time enough to kill a rank mid-sweep.
  const std::string scen =
      testing::write_json(dir / "s.json", testing::two_policy_scenario("120d", 1024));
  std::vector<std::string> a = args(scen, dir / "killed");
  a[5] = "20";
  straight(a, dir);
  const size_t total = testing::count_lines(dir / "straight/results.csv") - 1;
  SECTION("resumed without MPI") {
    const size_t rows = kill_worker_mid_sweep(a, dir);
    CHECK(rows < total);
    a.push_back("--resume");
    REQUIRE(testing::run_goodsim(a, dir / "log.txt") == 0);
  }
  SECTION("resumed with MPI") {
    const size_t rows = kill_worker_mid_sweep(a, dir);
    CHECK(rows < total);
    a.push_back("--resume");
    REQUIRE(run_mpi(a, dir / "log.txt") == 0);
  }
  require_same_files(dir / "killed", dir / "straight");
}

}  // namespace
}  // namespace goodsim::app::sweep
