#include "app/report_command.h"

#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ostream>
#include <vector>

#include "sim/scenario/error.h"

extern char** environ;

namespace goodsim::app {
namespace {

namespace fs = std::filesystem;
using scenario::ScenarioError;
constexpr const char* kPython = "/usr/bin/python3";

bool has_report(const fs::path& dir) {
  std::error_code ec;
  return fs::is_regular_file(dir / "report.py", ec);
}

int run_child(const std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, argv[0], nullptr, nullptr, argv.data(), environ);
  if (rc != 0) {
    throw ScenarioError(args[0], "", fmt::format("cannot start: {}", std::strerror(rc)));
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw ScenarioError(args[0], "", "lost the report process");
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) <= 2) return WEXITSTATUS(status);
  throw ScenarioError(args[1], "", "the report script failed (see the messages above)");
}

}  // namespace

fs::path analysis_dir() {
  std::vector<fs::path> tried;
  if (const char* env = std::getenv("GOODSIM_ANALYSIS_DIR"); env && *env) {
    if (has_report(env)) return env;
    throw ScenarioError("GOODSIM_ANALYSIS_DIR", "",
                        fmt::format("{}: no report.py there (expected the analysis/ folder of "
                                    "the goodsim sources)", env));
  }
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) tried.push_back(exe.parent_path().parent_path() / "share" / "goodsim" / "analysis");
#ifdef GOODSIM_SOURCE_ANALYSIS_DIR
  tried.emplace_back(GOODSIM_SOURCE_ANALYSIS_DIR);
#endif
  std::string where;
  for (const fs::path& dir : tried) {
    if (has_report(dir)) return dir;
    where += (where.empty() ? "" : ", ") + dir.string();
  }
  throw ScenarioError("report.py", "",
                      fmt::format("not found (looked in {}); set GOODSIM_ANALYSIS_DIR to the "
                                  "analysis/ folder of the goodsim sources",
                                  where.empty() ? "nowhere" : where));
}

int report_command(const ReportOptions& o, std::ostream& out, std::ostream& err) {
  std::error_code ec;
  if (!fs::is_directory(o.dir, ec)) {
    throw ScenarioError(o.dir, "", "no such directory (expected a goodsim output directory)");
  }
  if (access(kPython, X_OK) != 0) {
    throw ScenarioError(kPython, "",
                        "not found: goodsim report draws with Debian's python3, matplotlib "
                        "and pandas (apt-get install python3-matplotlib python3-pandas, or "
                        "scripts/install-deps.sh)");
  }
  const fs::path script = analysis_dir() / "report.py";
  const std::string target = o.out.empty() ? (fs::path(o.dir) / "report.html").string() : o.out;
  out.flush();
  err.flush();
  return run_child({kPython, "-B", script.string(), o.dir, "--out", target});
}

}  // namespace goodsim::app
