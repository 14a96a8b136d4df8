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
//
// Besides that exact crossing (to --tolerance), the command reports each
// threshold on the bandwidth grid of the Streaming DiLoCo paper's simulator
// (arXiv 2501.18512, Table 4): the smallest grid point whose utilization
// reaches the target, as that table reports it (--grid reference, the
// default; --grid none leaves it out).
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
  std::string grid = "reference";     // "reference" or "none"
};

// The reference grid: 50 bandwidths evenly spaced in log from 0.1 Gbps to
// 1 Tbps, 10^(-1 + 4k/49) Gbps for k = 0..49 (neighbours a factor 10^(4/49)
// ~ 1.207 apart), in bits/s, ascending.
std::vector<double> reference_grid_bps();

// The index of the first point x of `grid` (ascending) with f(x) >= target,
// by binary search; nullopt when f(grid.back()) < target. f must be
// non-decreasing. REQUIRES: grid not empty.
std::optional<size_t> first_on_grid(const std::function<double(double)>& f, double target,
                                    const std::vector<double>& grid);

// The smallest x in [lo, hi] with f(x) >= target, up to a factor (1 + tol):
// the returned x satisfies f(x) >= target and f(x / (1 + tol)) < target
// (unless x == lo). nullopt when f(hi) < target. f must be non-decreasing.
// REQUIRES: 0 < lo < hi, tol > 0.
std::optional<double> bisect_bandwidth(const std::function<double(double)>& f, double target,
                                       double lo, double hi, double tol);

// Prints one row per policy: the utilization at the scenario's own links,
// then the bandwidth needed for each target (">MAX" when not reached); then,
// unless --grid none, the same on the reference grid in Gbps ("<=0.1" when
// the grid's first point already reaches it, ">1000" when none does).
// Throws scenario::ScenarioError on bad input (exit code 2).
int bandwidth_command(const BandwidthOptions& options, std::ostream& out);

}  // namespace goodsim::app
