// goodsim bandwidth: the WAN bandwidth each policy of a scenario needs to
// reach a compute utilization.
//
// Utilization is the policy's goodput (productive chip-time / chips x
// horizon): in a scenario without failures, stragglers or spares, the share
// of the time the chips compute. Every WAN link of the scenario is set to the
// same bandwidth X; for each policy and target u the command finds the
// smallest X with utilization(X) >= u by geometric bisection over
// [--min, --max], assuming utilization never falls as X grows. Each probe is
// one full run of that policy; probes are remembered, so the targets of one
// policy share them.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace goodsim::app {

struct BandwidthOptions {
  std::string scenario;
  std::vector<std::string> sets;      // --set k=v, applied before anything else
  std::optional<uint64_t> seed;
  std::vector<double> targets;        // utilizations, each in (0, 1)
  std::vector<std::string> policies;  // names to study; empty: every policy
  std::string min = "1Mbps";          // bracket of the bisection
  std::string max = "100Tbps";
  double tolerance = 0.01;            // relative width of the final bracket
};

// The smallest x in [lo, hi] with f(x) >= target, up to a factor (1 + tol):
// the returned x satisfies f(x) >= target and f(x / (1 + tol)) < target
// (unless x == lo). nullopt when f(hi) < target. f must be non-decreasing.
// REQUIRES: 0 < lo < hi, tol > 0.
std::optional<double> bisect_bandwidth(const std::function<double(double)>& f, double target,
                                       double lo, double hi, double tol);

// Prints one row per policy: the utilization at the scenario's own links,
// then the bandwidth needed for each target (">MAX" when not reached).
// Throws scenario::ScenarioError on bad input (exit code 2).
int bandwidth_command(const BandwidthOptions& options, std::ostream& out);

}  // namespace goodsim::app
