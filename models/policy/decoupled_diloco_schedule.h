// The fragment schedule of decoupled_diloco (docs/decoupled_diloco.md,
// "Schedule"): pure arithmetic on schedule steps, no state but the offsets.
//
// P fragments, a period of H schedule steps (inner_steps). Fragment p is
// reported at the schedule steps c >= 1 with c mod H == t_p, t_p = floor(p H
// / P); the report at c = t_p + n H belongs to round n of fragment p (so the
// first round of fragment 0, whose offset is 0, is round 1: no report at step
// 0). Schedule steps may be negative (a learner's clock before its offset).
#pragma once

#include <cstdint>
#include <vector>

namespace goodsim::models::policy {

// floor(a / b). REQUIRES: b != 0.
inline int64_t floor_div(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

// floor(a / h) for a divisor h fixed at construction, asked for every
// learner at every round. For 0 <= a < 2^32 and 2 <= h < 2^32 it multiplies
// instead of dividing: with M = ceil(2^64 / h), floor(a / h) = floor(M a /
// 2^64), exact for every 32-bit a and h (Lemire, Kaser and Kurz, "Faster
// remainder by direct computation", 2019); other values divide.
class FloorDivider {
 public:
  // REQUIRES: h >= 1.
  explicit FloorDivider(uint64_t h)
      : h_(static_cast<int64_t>(h)), m_(h >= 2 && h <= UINT32_MAX ? UINT64_MAX / h + 1 : 0) {}
  int64_t h() const { return h_; }
  int64_t operator()(int64_t a) const {
    if (m_ != 0 && a >= 0 && a <= int64_t{UINT32_MAX}) {
      __extension__ using Wide = unsigned __int128;
      return static_cast<int64_t>((static_cast<Wide>(m_) * static_cast<uint64_t>(a)) >> 64);
    }
    return floor_div(a, h_);
  }

 private:
  int64_t h_;
  uint64_t m_;  // ceil(2^64 / h), 0 when the multiplication does not apply
};

// Largest schedule step c <= s with c mod H == t and c >= 1; 0 if none.
// REQUIRES: t < H (the divider's h).
inline int64_t latest_report(int64_t s, uint64_t t, const FloorDivider& h) {
  const auto tt = static_cast<int64_t>(t);
  const int64_t c = tt + h(s - tt) * h.h();
  return c >= 1 ? c : 0;
}

// Smallest schedule step c > after with c mod H == t and c >= 1.
// REQUIRES: t < H (the divider's h).
inline int64_t next_report(int64_t after, uint64_t t, const FloorDivider& h) {
  const auto tt = static_cast<int64_t>(t);
  int64_t c = tt + (h(after - tt) + 1) * h.h();
  while (c < 1) c += h.h();
  return c;
}

class FragmentSchedule {
 public:
  // REQUIRES: 1 <= fragments <= inner_steps.
  FragmentSchedule(uint32_t fragments, uint64_t inner_steps);

  uint32_t fragments() const { return static_cast<uint32_t>(offsets_.size()); }
  uint64_t period() const { return h_; }  // H
  // t_p (tabled: asked for every learner at every round).
  uint64_t offset(uint32_t p) const { return offsets_[p]; }
  // The report step of round n of fragment p: t_p + n H.
  int64_t round_step(uint32_t p, uint64_t n) const {
    return static_cast<int64_t>(offsets_[p] + n * h_);
  }
  // Fragment p's first round (its first report step is >= 1).
  uint64_t first_round(uint32_t p) const { return offsets_[p] == 0 ? 1 : 0; }
  // Fragment p's latest report at or before s (0 if none) and next after s.
  int64_t latest(uint32_t p, int64_t s) const { return latest_report(s, offsets_[p], div_); }
  int64_t next(uint32_t p, int64_t after) const { return next_report(after, offsets_[p], div_); }
  // The round of fragment p's next report after schedule step s.
  uint64_t next_round(uint32_t p, int64_t s) const {
    return (static_cast<uint64_t>(next(p, s)) - offsets_[p]) / h_;
  }
  // The latest report of any fragment at or before s; 0 if none.
  int64_t latest_any(int64_t s) const;
  // The first report step >= s of any fragment; sets its fragment and round.
  int64_t report_at_or_after(int64_t s, uint32_t& p, uint64_t& round) const;

 private:
  uint64_t h_;
  FloorDivider div_;
  std::vector<uint64_t> offsets_;
};

}  // namespace goodsim::models::policy
