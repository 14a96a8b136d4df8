// goodsim check: the CI regression gate. Runs each scenario over N seeds and
// compares every metric its baseline lists, per policy, with the rule of
// compare.h; prints baseline vs now with a verdict per row.
// Exit codes: 0 no regression, 1 a regression, 2 bad input (unreadable or
// malformed baseline, a scenario or policy missing from it or from the
// scenario, bad options, or seeds that differ from those of a baseline with
// per-seed values: pairing would be lost, see --allow-unpaired). --update
// records the baseline instead (atomically) and returns 0. See docs/ci.md.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace goodsim::app::sweep {

struct CheckOptions {
  std::vector<std::string> scenarios;   // scenario files
  std::string baseline;                 // baseline JSON file
  std::optional<size_t> seeds;          // default: the baseline's, else 5
  std::vector<std::string> tolerances;  // "X" (every metric) or "metric=X", absolute
  std::vector<std::string>
      metrics;  // --update: metrics to record (default: kept, else goodput,uptime)
  std::vector<std::string> sets;  // --set k=v applied to every scenario
  bool update = false;
  bool allow_unpaired = false;  // compare (with a warning) when the seeds differ from the
                                // baseline's, instead of refusing (exit 2)
  std::string format = "text";  // text, json or junit (check_report.h)
  unsigned jobs = 0;  // 0: the number of cores
};

int check_command(const CheckOptions& options, std::ostream& out);

}  // namespace goodsim::app::sweep
