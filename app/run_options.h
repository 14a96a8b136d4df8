// The options of `goodsim run` and the resource limits every command shares.
// Plain data: filled by the command line (cli/main.cc) or the Python module,
// read by run_command (commands.h) and run_replications (replicate.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/resource_estimate.h"

namespace goodsim::app {

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
  std::optional<uint64_t> seeds;        // --seeds N: N replications (app/replicate.h)
  std::optional<unsigned> jobs;         // --jobs J: replications in parallel
  LimitOptions limits;
};

// The limits --max-memory and --max-events ask for (defaults: models::ResourceLimits).
// Throws scenario::ScenarioError on a malformed value.
models::ResourceLimits resolve_limits(const LimitOptions& options);

}  // namespace goodsim::app
