#include "models/failure/lifetime_heap.h"

#include <utility>

namespace goodsim::models::failure {

void LifetimeHeap::build(std::vector<Entry> entries) {
  heap_ = std::move(entries);
  if (heap_.size() < 2) return;
  for (size_t i = (heap_.size() - 2) / kArity + 1; i-- > 0;) sift_down(i);
}

void LifetimeHeap::push(Entry e) {
  heap_.push_back(e);
  sift_up(heap_.size() - 1);
}

void LifetimeHeap::pop() {
  heap_.front() = heap_.back();
  heap_.pop_back();
  if (!heap_.empty()) sift_down(0);
}

void LifetimeHeap::replace_top(Entry e) {
  heap_.front() = e;
  sift_down(0);
}

void LifetimeHeap::sift_up(size_t i) {
  const Entry e = heap_[i];
  while (i > 0) {
    const size_t parent = (i - 1) / kArity;
    if (!less(e, heap_[parent])) break;
    heap_[i] = heap_[parent];
    i = parent;
  }
  heap_[i] = e;
}

void LifetimeHeap::sift_down(size_t i) {
  const Entry e = heap_[i];
  const size_t n = heap_.size();
  while (true) {
    const size_t first = i * kArity + 1;
    if (first >= n) break;
    const size_t last = first + kArity < n ? first + kArity : n;
    size_t best = first;
    for (size_t c = first + 1; c < last; ++c) {
      if (less(heap_[c], heap_[best])) best = c;
    }
    if (!less(heap_[best], e)) break;
    heap_[i] = heap_[best];
    i = best;
  }
  heap_[i] = e;
}

}  // namespace goodsim::models::failure
