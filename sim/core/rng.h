// Deterministic random-number streams for goodsim.
//
// Every random draw in a run comes from an Rng, and every component owns its
// own Rng derived from (run seed, stream name), so adding, removing or
// reordering components never shifts another component's numbers (see
// docs/architecture.md section 3, "Random numbers"). All algorithms here are fully specified
// integer arithmetic, so a given (seed, name) yields the same bits with any
// compiler, standard library or platform.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace goodsim::core {

// SplitMix64 (Steele, Lea, Flood 2014): adds the golden-ratio increment to
// `state` and returns a 64-bit finalizer of the new state. Used only to expand
// seeds; the finalizer is a bijection, so distinct states give distinct outputs.
inline uint64_t splitmix64_next(uint64_t& state) {
  state += 0x9e3779b97f4a7c15ULL;
  uint64_t z = state;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// One-shot SplitMix64 of `x` (the first output of a SplitMix64 seeded with x).
inline uint64_t splitmix64_mix(uint64_t x) { return splitmix64_next(x); }

// 64-bit FNV-1a hash of the bytes of `s` (offset basis 0xcbf29ce484222325,
// prime 0x100000001b3).
uint64_t fnv1a64(std::string_view s);

namespace detail {

// Full 64x64 -> 128-bit product, returned as (high, low) words.
struct U128Parts {
  uint64_t hi;
  uint64_t lo;
};

// Portable version (four 32-bit partial products); exposed for testing.
inline U128Parts mul_u64_wide_portable(uint64_t a, uint64_t b) {
  const uint64_t a_lo = a & 0xffffffffULL, a_hi = a >> 32;
  const uint64_t b_lo = b & 0xffffffffULL, b_hi = b >> 32;
  const uint64_t ll = a_lo * b_lo, lh = a_lo * b_hi;
  const uint64_t hl = a_hi * b_lo, hh = a_hi * b_hi;
  const uint64_t mid = (ll >> 32) + (lh & 0xffffffffULL) + (hl & 0xffffffffULL);
  return {hh + (lh >> 32) + (hl >> 32) + (mid >> 32), (mid << 32) | (ll & 0xffffffffULL)};
}

inline U128Parts mul_u64_wide(uint64_t a, uint64_t b) {
#if defined(__SIZEOF_INT128__)
  __extension__ using U128 = unsigned __int128;
  const U128 p = static_cast<U128>(a) * b;
  return {static_cast<uint64_t>(p >> 64), static_cast<uint64_t>(p)};
#else
  return mul_u64_wide_portable(a, b);
#endif
}

}  // namespace detail

// Rng: a xoshiro256** generator (Blackman & Vigna 2018), our own implementation.
//
// Purpose: the only source of randomness in the simulator. A plain copyable
// value (32 bytes of state); copying it forks an identical sequence. Not
// thread-safe: one Rng per component, used from one thread at a time.
// Invariant: the state is never all zero (SplitMix64 seeding guarantees it).
class Rng {
 public:
  using State = std::array<uint64_t, 4>;

  // Seeds the four state words with four consecutive SplitMix64 outputs of
  // `seed`. Any seed, including 0, is fine.
  explicit Rng(uint64_t seed);

  // The stream named `stream_name` of the run seeded with `seed`:
  //   Rng(splitmix64_mix(seed) ^ fnv1a64(stream_name)).
  // Depends only on (seed, name), never on how many streams exist or their
  // creation order. Names should be stable and unique per component
  // (e.g. "failure/weibull_failures/0").
  static Rng for_stream(uint64_t seed, std::string_view stream_name);

  // Uses `state` verbatim (for reference tests and checkpoints).
  // Throws std::invalid_argument if the state is all zero.
  static Rng from_state(const State& state);

  const State& state() const { return s_; }

  // Next 64 uniformly distributed bits (xoshiro256** output function).
  uint64_t next_u64() {
    const uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

  // Uniform on [0, 1): the top 53 bits scaled by 2^-53 (every value is a
  // multiple of 2^-53; 0 is possible, 1 is not).
  double uniform01() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }

  // Uniform on (0, 1]: like uniform01 but shifted by 2^-53, so log() is finite.
  double uniform_pos01() {
    return static_cast<double>((next_u64() >> 11) + 1) * 0x1.0p-53;
  }

  // Uniform integer in [0, n), exactly unbiased (Lemire 2019, multiply-shift
  // with rejection; usually one draw, at most ~2 expected for any n).
  // REQUIRES: n > 0.
  uint64_t below(uint64_t n) {
    detail::U128Parts m = detail::mul_u64_wide(next_u64(), n);
    if (m.lo < n) {
      const uint64_t threshold = (0 - n) % n;  // 2^64 mod n
      while (m.lo < threshold) m = detail::mul_u64_wide(next_u64(), n);
    }
    return m.hi;
  }

  friend bool operator==(const Rng&, const Rng&) = default;

 private:
  Rng() = default;
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

  State s_{};
};

}  // namespace goodsim::core
