// A list of at most N values stored inline, oldest first: the bounded
// histories decoupled_diloco keeps per learner and fragment (broadcasts sent,
// merged fragments on their way), asked for at every round. No allocation,
// and copies (the fast-forward's snapshots) are plain copies.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace goodsim::models::policy {

template <typename T, size_t N>
class FixedList {
 public:
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  bool full() const { return size_ == N; }
  // REQUIRES: i < size().
  T& operator[](size_t i) { return items_[i]; }
  const T& operator[](size_t i) const { return items_[i]; }
  // REQUIRES: !empty().
  T& back() { return items_[size_ - 1]; }
  const T& back() const { return items_[size_ - 1]; }
  T* begin() { return items_.data(); }
  T* end() { return items_.data() + size_; }
  const T* begin() const { return items_.data(); }
  const T* end() const { return items_.data() + size_; }

  // Appends x; when full, the oldest value is dropped first (a bounded history).
  void push_back(const T& x) {
    if (size_ == N) erase_front(1);
    items_[size_++] = x;
  }
  // REQUIRES: !empty().
  void pop_back() { --size_; }
  void clear() { size_ = 0; }
  // Drops the n oldest values. REQUIRES: n <= size().
  void erase_front(size_t n) {
    for (size_t j = n; j < size_; ++j) items_[j - n] = items_[j];
    size_ = static_cast<uint8_t>(size_ - n);
  }
  // Keeps the first n values. REQUIRES: n <= size().
  void truncate(size_t n) { size_ = static_cast<uint8_t>(n); }

 private:
  static_assert(N > 0 && N < 256);
  std::array<T, N> items_{};
  uint8_t size_ = 0;
};

}  // namespace goodsim::models::policy
