// The progress line of `goodsim run` on long runs: "data_parallel: simulated
// 3.2d of 30d (10.7%), 1.2e+06 events/s", redrawn in place on stderr at most
// twice a second once a run has taken a second. Only on a terminal: a file or
// a pipe gets nothing, so logs and scripts see exactly what they saw before.
#pragma once

#include <chrono>
#include <iosfwd>
#include <string>

#include "models/runner.h"

namespace goodsim::app {

class RunProgressLine {
 public:
  // `enabled`: draw at all (normally: stderr is a terminal and not --quiet).
  RunProgressLine(std::ostream& err, bool enabled) : err_(err), enabled_(enabled) {}
  ~RunProgressLine() { clear(); }
  RunProgressLine(const RunProgressLine&) = delete;
  RunProgressLine& operator=(const RunProgressLine&) = delete;

  // The callback for models::run_scenario (empty when disabled: the run is not sliced).
  models::RunProgress callback();
  // Erases the line if one is drawn.
  void clear();
  // The line's text (for tests).
  static std::string text(const std::string& policy, double sim_s, double horizon_s,
                          double events_per_s);
  // Whether stderr is a terminal.
  static bool stderr_is_terminal();

 private:
  using Clock = std::chrono::steady_clock;
  void update(const std::string& policy, double sim_s, double horizon_s, uint64_t events);

  std::ostream& err_;
  bool enabled_;
  bool drawn_ = false;
  std::string policy_;
  Clock::time_point policy_start_{};
  Clock::time_point last_{};
};

}  // namespace goodsim::app
