// The progress line of `goodsim run` on long runs: "data_parallel: simulated
// 3.2d of 30d (10.7%), 1.2e+06 events/s", redrawn in place on stderr at most
// twice a second once a run has taken a second. Only on a terminal: a file or
// a pipe gets nothing, so logs and scripts see exactly what they saw before.
// With several policies the line covers all of them: "simulated 42.0% of 6
// policies (k1 61%, k8 23%), 2.1e+06 events/s", the running ones named.
// Thread-safe: policies run in parallel report from their own threads.
#pragma once

#include <chrono>
#include <iosfwd>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "models/runner.h"

namespace goodsim::app {

class RunProgressLine {
 public:
  // `enabled`: draw at all (normally: stderr is a terminal and not --quiet).
  // `policies`: how many policy runs the line covers.
  RunProgressLine(std::ostream& err, bool enabled, size_t policies = 1)
      : err_(err), enabled_(enabled), policies_(policies), start_(Clock::now()) {}
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
  // The line of several policies: `done` the fraction of all their simulated time,
  // `running` the share of each policy started and not finished.
  static std::string text_all(double done, size_t policies,
                              const std::vector<std::pair<std::string, double>>& running,
                              double events_per_s);
  // Whether stderr is a terminal.
  static bool stderr_is_terminal();

 private:
  using Clock = std::chrono::steady_clock;
  struct Share {
    double done = 0;  // fraction of the horizon simulated
    uint64_t events = 0;
  };
  void update(const std::string& policy, double sim_s, double horizon_s, uint64_t events);
  void update_all(const std::string& policy, double done, uint64_t events);
  void draw(const std::string& line, Clock::time_point now);

  std::ostream& err_;
  bool enabled_;
  size_t policies_;
  Clock::time_point start_;
  std::mutex mutex_;
  std::map<std::string, Share> shares_;  // several policies: each one's progress
  bool drawn_ = false;
  std::string policy_;
  Clock::time_point policy_start_{};
  Clock::time_point last_{};
};

}  // namespace goodsim::app
