#include "sim/core/event_queue.h"

#include <algorithm>

#include "sim/core/check.h"

namespace goodsim::core {
namespace {
// Rebuild only when stale entries dominate, so the cost amortises to O(1) per
// cancellation.
constexpr size_t kMinStaleForRebuild = 1024;
}  // namespace

EventId EventQueue::push(SimTime time, Band band, HandlerId handler, uint64_t a, uint64_t b) {
  GOODSIM_CHECK_MSG(next_seq_ < kMaxSeq, "event sequence counter exhausted");
  const uint32_t slot = allocate_slot();
  const uint64_t key = (uint64_t{band} << 56) | next_seq_++;
  live_keys_[slot] = key;
  const Entry e{time.ns(), key, a, b, handler, slot};
  if (popped_top_) {
    heap_.replace_top(e);
    popped_top_ = false;
  } else {
    heap_.push(e);
  }
  ++live_;
  return EventId{slot, key};
}

bool EventQueue::cancel(EventId id) {
  if (!id.valid() || id.slot >= live_keys_.size()) return false;
  if (live_keys_[id.slot] != id.key) return false;
  live_keys_[id.slot] = kFreeSlot;
  free_slots_.push_back(id.slot);
  --live_;
  ++stale_;
  if (stale_ >= kMinStaleForRebuild && stale_ > live_) rebuild_without_stale();
  return true;
}

Event EventQueue::pop() {
  settle();
  GOODSIM_CHECK(!heap_.empty());
  const Entry top = heap_.top();
  popped_top_ = true;
  live_keys_[top.slot] = kFreeSlot;  // a store only: the payload is in the entry
  free_slots_.push_back(top.slot);
  --live_;
  return Event{SimTime::from_ns(top.time), top.key & kMaxSeq, top.handler,
               static_cast<Band>(top.key >> 56), top.a, top.b};
}

SimTime EventQueue::next_time() {
  settle();
  GOODSIM_CHECK(!heap_.empty());
  return SimTime::from_ns(heap_.top().time);
}

uint32_t EventQueue::allocate_slot() {
  if (!free_slots_.empty()) {
    const uint32_t slot = free_slots_.back();
    free_slots_.pop_back();
    return slot;
  }
  GOODSIM_CHECK(live_keys_.size() < UINT32_MAX);
  live_keys_.push_back(kFreeSlot);
  return static_cast<uint32_t>(live_keys_.size() - 1);
}

void EventQueue::settle() {
  if (popped_top_) {
    heap_.pop();
    popped_top_ = false;
  }
  while (stale_ > 0 && !heap_.empty() && is_stale(heap_.top())) {
    heap_.pop();
    --stale_;
  }
}

void EventQueue::rebuild_without_stale() {
  if (popped_top_) {
    heap_.pop();
    popped_top_ = false;
  }
  heap_.erase_if([this](const Entry& e) { return is_stale(e); });
  stale_ = 0;
}

SimTime EventQueue::next_time_excluding(HandlerId h) const {
  int64_t first = SimTime::max().ns();
  const std::vector<Entry>& items = heap_.items();
  for (size_t i = popped_top_ ? 1 : 0; i < items.size(); ++i) {
    const Entry& e = items[i];
    if (e.handler != h && !is_stale(e)) first = std::min(first, e.time);
  }
  return SimTime::from_ns(first);
}

}  // namespace goodsim::core
