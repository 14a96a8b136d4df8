// LifetimeHeap: the pending lifetime ends of many chips, earliest first.
//
// A 4-ary min-heap (core::DaryHeap) of (time, chip), 16 bytes per entry:
// O(log4 N) push / pop / replace_top and O(N) build. Entries are ordered by
// time, then chip id, so equal times come out in a fixed order.
//
// Only the operations a lifetime injector needs: take the earliest, replace
// it, insert. A chip is in the heap while its lifetime clock runs; nothing is
// ever removed from the middle, so no index of positions is kept.
#pragma once

#include <cstdint>

#include "sim/core/dary_heap.h"

namespace goodsim::models::failure {

struct LifetimeEnd {
  int64_t time_ns;
  uint32_t chip;
};

struct LifetimeEndBefore {
  bool operator()(const LifetimeEnd& a, const LifetimeEnd& b) const {
    return a.time_ns < b.time_ns || (a.time_ns == b.time_ns && a.chip < b.chip);
  }
};

class LifetimeHeap : public core::DaryHeap<LifetimeEnd, LifetimeEndBefore> {
 public:
  using Entry = LifetimeEnd;
};

}  // namespace goodsim::models::failure
