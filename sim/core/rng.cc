#include "sim/core/rng.h"

#include <stdexcept>

namespace goodsim::core {

uint64_t fnv1a64(std::string_view s) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (const char c : s) {
    h ^= static_cast<uint64_t>(static_cast<unsigned char>(c));
    h *= 0x100000001b3ULL;
  }
  return h;
}

Rng::Rng(uint64_t seed) {
  // SplitMix64's finalizer is a bijection and the four inputs are distinct,
  // so at most one word can be zero: the all-zero state is unreachable.
  uint64_t sm = seed;
  for (uint64_t& word : s_) word = splitmix64_next(sm);
}

Rng Rng::for_stream(uint64_t seed, std::string_view stream_name) {
  // Mixing the seed first keeps nearby seeds (1, 2, 3...) from producing
  // related stream seeds after the XOR with the name hash.
  return Rng(splitmix64_mix(seed) ^ fnv1a64(stream_name));
}

Rng Rng::from_state(const State& state) {
  if (state[0] == 0 && state[1] == 0 && state[2] == 0 && state[3] == 0) {
    throw std::invalid_argument("Rng::from_state: the all-zero state is invalid for xoshiro256**");
  }
  Rng rng;
  rng.s_ = state;
  return rng;
}

}  // namespace goodsim::core
