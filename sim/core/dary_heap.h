// DaryHeap: a d-ary min-heap of small values in one dense vector.
//
// The one heap of the code base: the event queue's pending set and the
// lifetime injectors' pending lifetime ends both use it. `Less` must be a
// strict weak order; for a deterministic pop order it must also be total over
// the values that can be in the heap at once (e.g. break time ties by a
// sequence number or an id). A d-ary heap (default 4) has half the depth of a
// binary one and the children of a node are adjacent in memory.
//
// Costs: push O(log_d n), pop and replace_top O(d log_d n), build O(n). No
// allocation once the vector has grown to the peak size.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace goodsim::core {

template <typename T, typename Less, size_t Arity = 4>
class DaryHeap {
  static_assert(Arity >= 2);

 public:
  // Replaces the contents with `items` (any order). O(n).
  void build(std::vector<T> items) {
    v_ = std::move(items);
    heapify();
  }
  bool empty() const { return v_.empty(); }
  size_t size() const { return v_.size(); }
  void reserve(size_t n) { v_.reserve(n); }
  // Appends without restoring the heap order; restore() must follow before
  // any other use. For filling an empty heap in O(n).
  void append_unordered(const T& x) { v_.push_back(x); }
  void restore() { heapify(); }
  // REQUIRES: !empty().
  const T& top() const { return v_.front(); }
  // Every element, in heap order.
  const std::vector<T>& items() const { return v_; }
  void push(const T& x) {
    v_.push_back(x);
    sift_up(v_.size() - 1);
  }
  // REQUIRES: !empty().
  void pop() {
    const T last = v_.back();
    v_.pop_back();
    if (!v_.empty()) place_from_leaf(last);
  }
  // pop() then push(x), in one sift. REQUIRES: !empty().
  void replace_top(const T& x) { place_from_leaf(x); }
  // Removes every value for which `pred` holds, then restores the heap. O(n).
  template <typename Pred>
  void erase_if(Pred pred) {
    std::erase_if(v_, pred);
    heapify();
  }

 private:
  void heapify() {
    if (v_.size() < 2) return;
    for (size_t i = (v_.size() - 2) / Arity + 1; i-- > 0;) place_down(i, v_[i]);
  }
  void sift_up(size_t i) {
    const T moving = v_[i];
    while (i > 0) {
      const size_t parent = (i - 1) / Arity;
      if (!less_(moving, v_[parent])) break;
      v_[i] = v_[parent];
      i = parent;
    }
    v_[i] = moving;
  }
  // Puts `moving` at the hole `i` and sifts it down to its place.
  void place_down(size_t i, const T moving) {
    const size_t n = v_.size();
    for (;;) {
      const size_t first = i * Arity + 1;
      if (first >= n) break;
      const size_t best = min_child(first, n);
      if (!less_(v_[best], moving)) break;
      v_[i] = v_[best];
      i = best;
    }
    v_[i] = moving;
  }
  // Floyd's variant for an element that belongs near the leaves (the last leaf
  // on pop, a later event on replace_top): moves the hole down along the
  // smallest children without comparing against `moving`, then sifts `moving`
  // up from the leaf it reached, which is rarely more than a level.
  void place_from_leaf(const T moving) {
    const size_t n = v_.size();
    size_t i = 0;
    for (;;) {
      const size_t first = i * Arity + 1;
      if (first >= n) break;
      const size_t best = min_child(first, n);
      v_[i] = v_[best];
      i = best;
    }
    v_[i] = moving;
    sift_up(i);
  }
  size_t min_child(size_t first, size_t n) const {
    if (first + Arity <= n) {
      size_t best = first;
      for (size_t c = first + 1; c < first + Arity; ++c) best = less_(v_[c], v_[best]) ? c : best;
      return best;
    }
    size_t best = first;
    for (size_t c = first + 1; c < n; ++c) best = less_(v_[c], v_[best]) ? c : best;
    return best;
  }

  std::vector<T> v_;
  [[no_unique_address]] Less less_;
};

}  // namespace goodsim::core
