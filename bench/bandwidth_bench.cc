// goodsim bandwidth on scenarios/streaming-bandwidth.json: the bisection
// table of all five policies of the 1B case for five utilization targets.
// Target (issue 19): under 10 s. Runs it three times; prints min and median
// wall time, and the table once.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <sstream>
#include <string>
#include <vector>

#include "bench/bench.h"
#include "app/bandwidth.h"

namespace goodsim::bench {

int bandwidth() {
  using Clock = std::chrono::steady_clock;
  app::BandwidthOptions o;
  o.scenario = std::string(GOODSIM_SOURCE_DIR) + "/scenarios/streaming-bandwidth.json";
  o.targets = {0.5, 0.8, 0.9, 0.95, 0.99};
  std::vector<double> walls;
  std::string table;
  for (int i = 0; i < 3; ++i) {
    std::ostringstream out;
    const auto start = Clock::now();
    app::bandwidth_command(o, out);
    walls.push_back(std::chrono::duration<double>(Clock::now() - start).count());
    table = out.str();
  }
  std::sort(walls.begin(), walls.end());
  fmt::print("bandwidth: {} (5 policies x 5 targets)\n{}\n", o.scenario, table);
  fmt::print("  wall time of 3 runs: min {:.3f} s, median {:.3f} s (target < 10 s)\n", walls[0],
             walls[1]);
  return walls[1] < 10.0 ? 0 : 1;
}

}  // namespace goodsim::bench
