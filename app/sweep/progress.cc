#include "app/sweep/progress.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <ostream>

namespace goodsim::app::sweep {
namespace {

std::string eta_text(double seconds) {
  if (seconds < 60) return fmt::format("{:.0f}s", seconds);
  if (seconds < 3600) {
    const long s = std::lround(seconds);
    return fmt::format("{}m{:02}s", s / 60, s % 60);
  }
  return fmt::format("{:.1f}h", seconds / 3600);
}

}  // namespace

Progress::Progress(std::ostream& err, Mode mode, size_t already_done)
    : err_(err), mode_(mode), already_done_(already_done) {}

Progress::Mode Progress::mode_for_stderr() {
  return ::isatty(STDERR_FILENO) ? Mode::kBar : Mode::kLines;
}

std::string Progress::text(size_t done, size_t total, double elapsed_s) const {
  const size_t fresh = done > already_done_ ? done - already_done_ : 0;
  const double rate = elapsed_s > 0 ? static_cast<double>(fresh) / elapsed_s : 0.0;
  const std::string eta = rate > 0 && total >= done
                              ? "ETA " + eta_text(static_cast<double>(total - done) / rate)
                              : "ETA --";
  const double frac = total > 0 ? static_cast<double>(done) / static_cast<double>(total) : 1.0;
  if (mode_ == Mode::kBar) {
    constexpr int kWidth = 24;
    const int filled = std::clamp(static_cast<int>(frac * kWidth), 0, kWidth);
    return fmt::format("[{}{}] {}/{} runs  {:.3g} runs/s  {}", std::string(filled, '#'),
                       std::string(kWidth - filled, '-'), done, total, rate, eta);
  }
  return fmt::format("sweep: {}/{} runs ({:.0f}%), {:.3g} runs/s, {}", done, total, 100 * frac,
                     rate, eta);
}

void Progress::update(size_t done, size_t total) {
  if (mode_ == Mode::kOff) return;
  const auto every = mode_ == Mode::kBar ? std::chrono::milliseconds(100) : std::chrono::seconds(5);
  const Clock::time_point now = Clock::now();
  if (printed_ && now - last_ < every) return;
  last_ = now;
  print(done, total);
}

void Progress::finish(size_t done, size_t total) {
  if (mode_ == Mode::kOff) return;
  print(done, total);
  if (mode_ == Mode::kBar) err_ << "\n";
  err_.flush();
}

void Progress::print(size_t done, size_t total) {
  const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
  if (mode_ == Mode::kBar) {
    err_ << "\r" << text(done, total, elapsed) << "\x1b[K" << std::flush;
  } else {
    err_ << text(done, total, elapsed) << "\n" << std::flush;
  }
  printed_ = true;
}

}  // namespace goodsim::app::sweep
