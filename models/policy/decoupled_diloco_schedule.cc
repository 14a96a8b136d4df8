#include "models/policy/decoupled_diloco_schedule.h"

#include <algorithm>
#include <cstdint>

namespace goodsim::models::policy {

FragmentSchedule::FragmentSchedule(uint32_t fragments, uint64_t inner_steps) : h_(inner_steps), div_(inner_steps) {
  offsets_.reserve(fragments);
  for (uint32_t p = 0; p < fragments; ++p) offsets_.push_back(uint64_t{p} * inner_steps / fragments);
}

int64_t FragmentSchedule::latest_any(int64_t s) const {
  int64_t last = 0;
  for (uint32_t p = 0; p < fragments(); ++p) last = std::max(last, latest(p, s));
  return last;
}

int64_t FragmentSchedule::report_at_or_after(int64_t s, uint32_t& p, uint64_t& round) const {
  const auto h = static_cast<int64_t>(h_);
  s = std::max<int64_t>(s, 1);  // no report at step 0
  const int64_t q = s / h;
  const int64_t r = s - q * h;
  // t_p = floor(p H / P) >= r exactly when p >= r P / H (r < H: 64 bits
  // hold r P + H when H < 2^32, the usual case; 128 otherwise).
  __extension__ using Wide = unsigned __int128;
  const auto ur = static_cast<uint64_t>(r);
  const uint64_t n = fragments();
  const uint64_t first = h_ <= UINT32_MAX
                             ? (ur * n + h_ - 1) / h_
                             : static_cast<uint64_t>((static_cast<Wide>(ur) * n + h_ - 1) / h_);
  if (first < n) {
    p = static_cast<uint32_t>(first);
    round = static_cast<uint64_t>(q);
    return s - r + static_cast<int64_t>(offsets_[p]);
  }
  p = 0;  // t_0 = 0, in the next period
  round = static_cast<uint64_t>(q) + 1;
  return s - r + h;
}

}  // namespace goodsim::models::policy
