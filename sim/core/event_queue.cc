#include "sim/core/event_queue.h"

#include <algorithm>

#include "sim/core/check.h"

namespace goodsim::core {
namespace {
constexpr size_t kArity = 4;
// Rebuild only when stale entries dominate, so the cost amortises to O(1) per
// cancellation.
constexpr size_t kMinStaleForRebuild = 1024;
}  // namespace

EventId EventQueue::push(SimTime time, Band band, HandlerId handler, uint64_t a, uint64_t b) {
  GOODSIM_CHECK_MSG(next_seq_ < kMaxSeq, "event sequence counter exhausted");
  const uint32_t slot = allocate_slot();
  Slot& s = slots_[slot];
  s.handler = handler;
  s.a = a;
  s.b = b;
  const uint64_t key = (uint64_t{band} << 56) | next_seq_++;
  heap_.push_back(Entry{time.ns(), key, slot, s.generation});
  sift_up(heap_.size() - 1);
  ++live_;
  return EventId{slot, s.generation};
}

bool EventQueue::cancel(EventId id) {
  if (!id.valid() || id.slot >= slots_.size()) return false;
  if (slots_[id.slot].generation != id.generation) return false;
  release_slot(id.slot);
  --live_;
  ++stale_;
  if (stale_ >= kMinStaleForRebuild && stale_ > live_) rebuild_without_stale();
  return true;
}

Event EventQueue::pop() {
  drop_stale_top();
  GOODSIM_CHECK(!heap_.empty());
  const Entry top = heap_.front();
  remove_top();
  const Slot& s = slots_[top.slot];
  Event e{SimTime::from_ns(top.time), top.key & kMaxSeq, s.handler,
          static_cast<Band>(top.key >> 56), s.a, s.b};
  release_slot(top.slot);
  --live_;
  return e;
}

SimTime EventQueue::next_time() {
  drop_stale_top();
  GOODSIM_CHECK(!heap_.empty());
  return SimTime::from_ns(heap_.front().time);
}

uint32_t EventQueue::allocate_slot() {
  if (!free_slots_.empty()) {
    const uint32_t slot = free_slots_.back();
    free_slots_.pop_back();
    return slot;
  }
  GOODSIM_CHECK(slots_.size() < UINT32_MAX);
  slots_.emplace_back();
  return static_cast<uint32_t>(slots_.size() - 1);
}

void EventQueue::release_slot(uint32_t slot) {
  ++slots_[slot].generation;
  free_slots_.push_back(slot);
}

void EventQueue::drop_stale_top() {
  while (!heap_.empty() && is_stale(heap_.front())) {
    remove_top();
    --stale_;
  }
}

void EventQueue::remove_top() {
  heap_.front() = heap_.back();
  heap_.pop_back();
  if (!heap_.empty()) sift_down(0);
}

void EventQueue::sift_up(size_t i) {
  const Entry moving = heap_[i];
  while (i > 0) {
    const size_t parent = (i - 1) / kArity;
    if (!before(moving, heap_[parent])) break;
    heap_[i] = heap_[parent];
    i = parent;
  }
  heap_[i] = moving;
}

void EventQueue::sift_down(size_t i) {
  const size_t n = heap_.size();
  const Entry moving = heap_[i];
  for (;;) {
    const size_t first = i * kArity + 1;
    if (first >= n) break;
    const size_t last = std::min(first + kArity, n);
    size_t best = first;
    for (size_t c = first + 1; c < last; ++c) {
      if (before(heap_[c], heap_[best])) best = c;
    }
    if (!before(heap_[best], moving)) break;
    heap_[i] = heap_[best];
    i = best;
  }
  heap_[i] = moving;
}

void EventQueue::rebuild_without_stale() {
  std::erase_if(heap_, [this](const Entry& e) { return is_stale(e); });
  stale_ = 0;
  if (heap_.size() < 2) return;
  for (size_t i = (heap_.size() - 2) / kArity + 1; i-- > 0;) sift_down(i);
}

}  // namespace goodsim::core
