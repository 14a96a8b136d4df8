// Simulated time for goodsim.
//
// SimTime is a point on the simulated clock and Duration a span, both a strong
// type over signed 64-bit nanoseconds (range about +/-292 years). Time is never
// a bare double inside the engine; doubles appear only at the edges (reading a
// scenario, printing seconds) through the explicit conversions below.
#pragma once

#include <cmath>
#include <compare>
#include <cstdint>
#include <limits>

namespace goodsim::core {

inline constexpr int64_t kNanosPerSecond = 1'000'000'000;

// A signed span of simulated time in nanoseconds.
class Duration {
 public:
  constexpr Duration() = default;

  static constexpr Duration nanos(int64_t ns) { return Duration(ns); }
  static constexpr Duration micros(int64_t us) { return Duration(us * 1000); }
  static constexpr Duration millis(int64_t ms) { return Duration(ms * 1'000'000); }
  static constexpr Duration seconds(int64_t s) { return Duration(s * kNanosPerSecond); }
  static constexpr Duration minutes(int64_t m) { return seconds(m * 60); }
  static constexpr Duration hours(int64_t h) { return seconds(h * 3600); }
  static constexpr Duration days(int64_t d) { return seconds(d * 86400); }
  // Rounds to the nearest nanosecond and saturates at max()/min(); a NaN
  // becomes zero. Used at the edges where a model samples a real-valued span.
  static Duration from_seconds(double s) {
    if (std::isnan(s)) return Duration();
    const double ns = std::round(s * static_cast<double>(kNanosPerSecond));
    if (ns >= 9.2e18) return max();
    if (ns <= -9.2e18) return min();
    return Duration(static_cast<int64_t>(ns));
  }
  static constexpr Duration zero() { return Duration(); }
  static constexpr Duration max() { return Duration(std::numeric_limits<int64_t>::max()); }
  static constexpr Duration min() { return Duration(std::numeric_limits<int64_t>::min()); }

  constexpr int64_t ns() const { return ns_; }
  constexpr double seconds_f() const { return static_cast<double>(ns_) / kNanosPerSecond; }

  constexpr auto operator<=>(const Duration&) const = default;
  constexpr Duration operator+(Duration o) const { return Duration(ns_ + o.ns_); }
  constexpr Duration operator-(Duration o) const { return Duration(ns_ - o.ns_); }
  constexpr Duration operator-() const { return Duration(-ns_); }
  constexpr Duration operator*(int64_t k) const { return Duration(ns_ * k); }
  constexpr Duration operator/(int64_t k) const { return Duration(ns_ / k); }
  constexpr Duration& operator+=(Duration o) { ns_ += o.ns_; return *this; }
  constexpr Duration& operator-=(Duration o) { ns_ -= o.ns_; return *this; }

 private:
  constexpr explicit Duration(int64_t ns) : ns_(ns) {}
  int64_t ns_ = 0;
};

// A point on the simulated clock, nanoseconds since the start of the run.
class SimTime {
 public:
  constexpr SimTime() = default;
  static constexpr SimTime zero() { return SimTime(); }
  static constexpr SimTime from_ns(int64_t ns) { return SimTime(ns); }
  static constexpr SimTime max() { return SimTime(std::numeric_limits<int64_t>::max()); }

  constexpr int64_t ns() const { return ns_; }
  constexpr double seconds_f() const { return static_cast<double>(ns_) / kNanosPerSecond; }
  constexpr Duration since_start() const { return Duration::nanos(ns_); }

  constexpr auto operator<=>(const SimTime&) const = default;
  // Saturating: adding to a time never wraps past max(), so "never" stays "never".
  constexpr SimTime operator+(Duration d) const {
    if (d.ns() > 0 && ns_ > std::numeric_limits<int64_t>::max() - d.ns()) return max();
    return SimTime(ns_ + d.ns());
  }
  constexpr SimTime operator-(Duration d) const { return SimTime(ns_ - d.ns()); }
  constexpr Duration operator-(SimTime o) const { return Duration::nanos(ns_ - o.ns_); }
  constexpr SimTime& operator+=(Duration d) { *this = *this + d; return *this; }

 private:
  constexpr explicit SimTime(int64_t ns) : ns_(ns) {}
  int64_t ns_ = 0;
};

}  // namespace goodsim::core
