// Atomic outputs: the target appears only on commit, an abandoned write leaves
// nothing, and the temporary files of killed runs are cleaned up by the next
// write of the same target (they used to pile up, up to hundreds of MB each).
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "sim/output/atomic_file.h"
#include "sim/output/event_log.h"

namespace goodsim::output {
namespace {

namespace fs = std::filesystem;

// The id of a process that has exited and been reaped: a pid no running process has.
pid_t dead_pid() {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  REQUIRE(child > 0);
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  return child;
}

void touch(const fs::path& p) { std::ofstream(p) << "partial"; }

fs::path fresh_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("goodsim_atomic_" + name + "_" +
                                                    std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

TEST_CASE("atomic file: the target appears only on commit", "[output][atomic]") {
  const fs::path dir = fresh_dir("commit");
  {
    AtomicFile f(dir / "summary.json");
    f.stream() << "{}";
    CHECK_FALSE(fs::exists(dir / "summary.json"));
  }  // abandoned: neither the target nor a temporary file is left
  CHECK(fs::is_empty(dir));
  write_file_atomically(dir / "summary.json", "{}");
  CHECK(fs::exists(dir / "summary.json"));
  CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator()) == 1);
  fs::remove_all(dir);
}

TEST_CASE("event log: stops at its cap with a marker line, every line valid JSON",
          "[output][atomic]") {
  // events.jsonl had no size limit (a long run wrote 24 GB).
  const fs::path dir = fresh_dir("events");
  constexpr uint64_t kCap = 4096;
  {
    EventLog log(dir / "events.jsonl", kCap);
    for (int i = 0; i < 1000; ++i) {
      log.record(core::SimTime::from_ns(i * 1'000'000'000LL), "dp", "failure",
                 {{"domain", "chip"}, {"id", i}});
    }
    CHECK(log.truncated());
    log.commit();
    CHECK(log.dropped() > 900);
  }
  std::ifstream in(dir / "events.jsonl");
  std::vector<nlohmann::json> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(nlohmann::json::parse(line));
  CHECK(fs::file_size(dir / "events.jsonl") <= kCap);
  REQUIRE(lines.size() > 10);
  CHECK(lines.back().value("truncated", false));
  CHECK(lines.back()["max_bytes"] == kCap);
  CHECK(lines[lines.size() - 2]["event"] == "failure");
  fs::remove_all(dir);
}

TEST_CASE("atomic file: temporary files of killed runs are removed, live ones kept",
          "[output][atomic]") {
  const fs::path dir = fresh_dir("stale");
  const std::string dead = std::to_string(dead_pid());
  const std::string alive = std::to_string(::getppid());
  touch(dir / (".events.jsonl.tmp-" + dead));   // a killed run's event log
  touch(dir / (".events.jsonl.tmp-" + alive));  // a run still writing
  touch(dir / (".trace.json.tmp-" + dead));     // another target: not this file's to clean
  touch(dir / ".events.jsonl.tmp-notapid");
  write_file_atomically(dir / "events.jsonl", "{}\n");
  CHECK_FALSE(fs::exists(dir / (".events.jsonl.tmp-" + dead)));
  CHECK(fs::exists(dir / (".events.jsonl.tmp-" + alive)));
  CHECK(fs::exists(dir / (".trace.json.tmp-" + dead)));
  CHECK(fs::exists(dir / ".events.jsonl.tmp-notapid"));
  write_file_atomically(dir / "trace.json", "{}");
  CHECK_FALSE(fs::exists(dir / (".trace.json.tmp-" + dead)));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace goodsim::output
