// Progress of a sweep on stderr.
//
// kBar (stderr is a terminal): one line redrawn in place, at most 10 times a
// second: "[########------------]  45/100 runs  3.2 runs/s  ETA 17s".
// kLines (stderr is a file or a pipe): a plain line at most every 5 seconds:
// "sweep: 45/100 runs (45%), 3.2 runs/s, ETA 17s". kOff: nothing.
// The rate counts only runs done by this process (not those found on
// --resume); the total may grow while adaptive replication adds seeds.
#pragma once

#include <chrono>
#include <cstddef>
#include <iosfwd>
#include <string>

namespace goodsim::app::sweep {

class Progress {
 public:
  enum class Mode { kOff, kBar, kLines };

  // `already_done`: runs that were complete before this process started.
  Progress(std::ostream& err, Mode mode, size_t already_done);

  // Mode for stderr: kBar when it is a terminal, else kLines.
  static Mode mode_for_stderr();

  // Reports `done` of `total` runs; rate-limited.
  void update(size_t done, size_t total);
  // The last report (always printed) and the end of the bar's line.
  void finish(size_t done, size_t total);

  // The text of one report, without line ending (for tests).
  std::string text(size_t done, size_t total, double elapsed_s) const;

 private:
  using Clock = std::chrono::steady_clock;
  void print(size_t done, size_t total);

  std::ostream& err_;
  Mode mode_;
  size_t already_done_;
  Clock::time_point start_ = Clock::now();
  Clock::time_point last_{};
  bool printed_ = false;
};

}  // namespace goodsim::app::sweep
