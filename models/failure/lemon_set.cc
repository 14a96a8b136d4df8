#include "models/failure/lemon_set.h"

#include <algorithm>
#include <cmath>

#include "sim/core/check.h"

namespace goodsim::models::failure {
namespace {

bool test_and_set(std::vector<uint64_t>& bits, uint64_t i) {
  const uint64_t mask = uint64_t{1} << (i & 63);
  const bool was = (bits[i >> 6] & mask) != 0;
  bits[i >> 6] |= mask;
  return was;
}

}  // namespace

std::vector<uint32_t> choose_distinct(core::Rng& rng, uint64_t n, uint64_t k) {
  GOODSIM_CHECK(k <= n);
  std::vector<uint32_t> out;
  if (k == 0) return out;
  out.reserve(k);
  std::vector<uint64_t> bits((n + 63) / 64, 0);
  // Floyd: for j = n-k .. n-1, take t uniform in [0, j]; if t is taken, take j
  // (which cannot be). Every k-subset is equally likely.
  for (uint64_t j = n - k; j < n; ++j) {
    const uint64_t t = rng.below(j + 1);
    const uint64_t pick = test_and_set(bits, t) ? j : t;
    if (pick == j) test_and_set(bits, j);
    out.push_back(static_cast<uint32_t>(pick));
  }
  std::sort(out.begin(), out.end());
  return out;
}

LemonSet LemonSet::choose(core::Rng& rng, uint64_t chips, double fraction) {
  GOODSIM_CHECK(fraction >= 0 && fraction <= 1);
  LemonSet s;
  const auto k = static_cast<uint64_t>(std::llround(fraction * static_cast<double>(chips)));
  s.ids_ = choose_distinct(rng, chips, std::min(k, chips));
  if (s.ids_.empty()) return s;
  s.bits_.assign((chips + 63) / 64, 0);
  for (const cluster::ChipId c : s.ids_) s.bits_[c >> 6] |= uint64_t{1} << (c & 63);
  return s;
}

}  // namespace goodsim::models::failure
