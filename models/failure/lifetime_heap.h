// LifetimeHeap: the pending lifetime ends of many chips, earliest first.
//
// A 4-ary min-heap of (time, chip) in one dense vector, 16 bytes per entry:
// O(log4 N) push / pop / replace_top and O(N) build. Entries are ordered by
// time, then chip id, so equal times come out in a fixed order. A 4-ary heap
// has half the depth of a binary one and its children share a cache line.
//
// Only the operations a lifetime injector needs: take the earliest, replace
// it, insert. A chip is in the heap while its lifetime clock runs; nothing is
// ever removed from the middle, so no index of positions is kept.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace goodsim::models::failure {

class LifetimeHeap {
 public:
  struct Entry {
    int64_t time_ns;
    uint32_t chip;
  };

  // Replaces the contents with `entries` (any order). O(N).
  void build(std::vector<Entry> entries);
  bool empty() const { return heap_.empty(); }
  size_t size() const { return heap_.size(); }
  // REQUIRES: !empty().
  const Entry& top() const { return heap_.front(); }
  void push(Entry e);
  // REQUIRES: !empty().
  void pop();
  // Same as pop() then push(e), in one sift. REQUIRES: !empty().
  void replace_top(Entry e);

 private:
  static constexpr size_t kArity = 4;
  static bool less(const Entry& a, const Entry& b) {
    return a.time_ns < b.time_ns || (a.time_ns == b.time_ns && a.chip < b.chip);
  }
  void sift_up(size_t i);
  void sift_down(size_t i);

  std::vector<Entry> heap_;
};

}  // namespace goodsim::models::failure
