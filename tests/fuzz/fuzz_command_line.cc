// libFuzzer target: the command line (argument vectors) of the goodsim binary.
//
// Input: arguments separated by NUL or newline bytes, given to goodsim's own main()
// (cli/main.cc, compiled here with main renamed) in a scratch directory that holds a small
// scenario, s.json. Every input must end in an exit code of 0, 1 or 2: an abort, a sanitizer
// report, an uncaught exception, another exit code or a slow input (libFuzzer's -timeout)
// is a finding. Inputs that ask for much work on purpose (a count above 64, --ci-target)
// are skipped, so that each input takes milliseconds; so are inputs naming a path outside
// the scratch directory, so that no run writes or clears files elsewhere, and `report`,
// which hands its work to an external Python process (tested in tests/analysis/).
#include <unistd.h>

#include <cstddef>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

int goodsim_main(int argc, char** argv);

namespace {

constexpr size_t kMaxArgs = 16;
constexpr size_t kMaxArgLength = 256;

// A 64-chip, 2-hour scenario: a run of it takes about a millisecond.
constexpr const char* kSmallScenario = R"({"name": "s", "seed": 1, "horizon": "2h",
  "cluster": {"chips": 64, "chips_per_host": 4, "hosts_per_slice": 4},
  "job": {"params": 1e9, "tokens_per_step": 1e6, "step_time": "1s"},
  "failures": [{"type": "exponential_failures", "mtbf": "2h", "repair_time": "10m"}],
  "policies": [{"name": "dp", "type": "data_parallel", "restart_time": "1m"}]})";

std::vector<std::string> split(const uint8_t* data, size_t size) {
  std::vector<std::string> args(1);
  for (size_t i = 0; i < size; ++i) {
    const char c = static_cast<char>(data[i]);
    if (c == '\0' || c == '\n') {
      args.emplace_back();
    } else {
      args.back() += c;
    }
  }
  return args;
}

// True for an argument holding a number above 64 (a seed count, a job count, a sweep's
// range): such runs are slow by request, not by a bug.
bool asks_for_much(const std::string& arg) {
  if (arg == "--ci-target" || arg == "--max-seeds") return true;
  size_t i = 0;
  while (i < arg.size()) {
    if (arg[i] < '0' || arg[i] > '9') {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < arg.size() && ((arg[j] >= '0' && arg[j] <= '9') || arg[j] == '.' ||
                              arg[j] == 'e' || arg[j] == 'E' || arg[j] == '+')) {
      ++j;
    }
    if (std::strtod(arg.substr(i, j - i).c_str(), nullptr) > 64) return true;
    i = j;
  }
  return false;
}

// True for an argument that could name a place outside the scratch directory (an absolute
// path, "..", or a "~"): a run there would clear an earlier run's outputs (summary.json,
// seed-*/, plots/) wherever the fuzzer pointed it.
bool leaves_scratch(const std::string& arg) {
  return arg.find('/') == 0 || arg.find("..") != std::string::npos ||
         arg.find('~') != std::string::npos || arg.find("=/") != std::string::npos;
}

// Where goodsim's standard output and error go (emptied for each input).
std::ostringstream& sink() {
  static std::ostringstream s;
  return s;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("goodsim-fuzz-cli-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::filesystem::current_path(dir);
  std::ofstream("s.json") << kSmallScenario;
  // "-" reads standard input: make it empty rather than the terminal.
  if (std::freopen("/dev/null", "r", stdin) == nullptr) std::abort();
  // goodsim's tables and messages are not what is checked here.
  std::cout.rdbuf(sink().rdbuf());
  std::cerr.rdbuf(sink().rdbuf());
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::string> args = split(data, size);
  if (args.size() > kMaxArgs) return 0;
  for (const std::string& a : args) {
    if (a.size() > kMaxArgLength || asks_for_much(a) || leaves_scratch(a) || a == "report") {
      return 0;
    }
  }
  args.insert(args.begin(), "goodsim");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  sink().str("");
  const int code = goodsim_main(static_cast<int>(args.size()), argv.data());
  if (code < 0 || code > 2) std::abort();
  return 0;
}
