// Shared pieces of the sweep and check tests: scratch directories, small
// scenario files, and the goodsim binary run as a child process
// (GOODSIM_BINARY is set by tests/CMakeLists.txt).
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/scenarios.h"

extern char** environ;

namespace goodsim::testing {

// A fresh directory under the system's temp dir, removed when destroyed.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& name)
      : path_(std::filesystem::temp_directory_path() /
              ("goodsim-test-" + name + "-" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

// Two data-parallel policies (restart 2m and 20m) on `chips` chips under
// exponential failures: per-run cost grows with horizon x chips / mtbf.
inline nlohmann::json two_policy_scenario(const std::string& horizon, int chips = 256,
                                          const std::string& mtbf = "30d") {
  nlohmann::json doc = small_scenario(horizon, mtbf, "30m", "2m", chips / 16, 4);
  doc["policies"][0]["name"] = "fast";
  doc["policies"].push_back({{"name", "slow"}, {"type", "data_parallel"}, {"restart_time", "20m"}});
  doc["outputs"] = {{"sample_interval", "1d"}};
  return doc;
}

inline std::string write_json(const std::string& path, const nlohmann::json& doc) {
  std::ofstream(path) << doc.dump(2) << "\n";
  return path;
}

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline size_t count_lines(const std::string& path) {
  const std::string text = read_text(path);
  size_t n = 0;
  for (char c : text) n += c == '\n' ? 1 : 0;
  return n;
}

// Starts the program all[0] with arguments all[1...], stdout and stderr
// appended to `log`.
inline pid_t spawn_process(std::vector<std::string> all, const std::string& log) {
  std::vector<char*> argv;
  for (std::string& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  return rc == 0 ? pid : -1;
}

// Starts `goodsim ARGS...` with stdout and stderr appended to `log`.
inline pid_t spawn_goodsim(const std::vector<std::string>& args, const std::string& log) {
  std::vector<std::string> all = {GOODSIM_BINARY};
  all.insert(all.end(), args.begin(), args.end());
  return spawn_process(std::move(all), log);
}

// The exit code of `pid`, or 128 + signal when it was killed.
inline int wait_exit(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}

inline int run_goodsim(const std::vector<std::string>& args, const std::string& log) {
  const pid_t pid = spawn_goodsim(args, log);
  return pid < 0 ? -1 : wait_exit(pid);
}

}  // namespace goodsim::testing
