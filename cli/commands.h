// The subcommands of the goodsim CLI. Each returns the process exit code
// (0 ok, 1 a check failed, 2 bad input) and writes user-facing text to `out`
// and `err`; bad input surfaces as scenario::ScenarioError, which main() turns
// into a message and exit code 2.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <iosfwd>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "models/resource_estimate.h"
namespace goodsim::scenario {
class ScenarioError;
}

namespace goodsim::cli {

// --max-memory and --max-events as given (defaults: models::ResourceLimits).
struct LimitOptions {
  std::optional<std::string> max_memory;  // a byte size: "8GiB", 1e10
  std::optional<double> max_events;
};

struct RunOptions {
  std::optional<std::string> scenario;  // none: the built-in demo
  std::vector<std::string> sets;        // --set k=v, in order
  std::optional<uint64_t> seed;
  std::optional<std::string> out_dir;   // default: out/<scenario name>
  bool events = false;                  // also write events.jsonl
  std::optional<std::string> max_output;  // cap on events.jsonl, a byte size (default 1GiB)
  bool trace = false;                   // also write trace.json.gz (Perfetto / Chrome)
  bool quiet = false;                   // no table
  bool verbose = false;                 // also print each policy's events and events/s
  std::optional<uint64_t> seeds;        // --seeds N: N replications (cli/replicate.h)
  std::optional<unsigned> jobs;         // --jobs J: replications in parallel
  LimitOptions limits;
};

// The limits --max-memory and --max-events ask for (defaults: models::ResourceLimits).
// Throws scenario::ScenarioError on a malformed value.
models::ResourceLimits resolve_limits(const LimitOptions& options);

// `err` gets the progress line of long runs (on a terminal only).
int run_command(const RunOptions& options, std::ostream& out, std::ostream& err);
// Validates each file (with the --set overrides) and prints its resource estimate; a
// file whose estimate exceeds `limits` is an error, as it would be for run.
int validate_command(const std::vector<std::string>& files, const std::vector<std::string>& sets,
                     const LimitOptions& limits, std::ostream& out, std::ostream& err);
// `format`: "text" (wrapped to `width`, default the terminal's), "markdown"
// (docs/models.md) or "json" (a JSON Schema of the scenario format).
int list_models_command(std::ostream& out, const std::string& format = "text",
                        std::optional<size_t> width = std::nullopt);

// Tells on `err` which of an earlier run's outputs in `dir` were removed (clear_previous_run)
// because this run does not write them again.
void note_removed(std::ostream& err, const std::filesystem::path& dir,
                  const std::set<std::string>& removed,
                  const std::function<bool(const std::string&)>& rewritten);

// Prints every error `e` stands for, one "error: ..." line each.
void print_errors(std::ostream& err, const scenario::ScenarioError& e);

}  // namespace goodsim::cli
