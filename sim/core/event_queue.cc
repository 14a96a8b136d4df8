#include "sim/core/event_queue.h"

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
  Slot& s = slots_[slot];
  s.handler = handler;
  s.a = a;
  s.b = b;
  const uint64_t key = (uint64_t{band} << 56) | next_seq_++;
  const Entry e{time.ns(), key, slot, s.generation};
  if (popped_top_) {
    heap_.replace_top(e);
    popped_top_ = false;
  } else {
    heap_.push(e);
  }
  ++live_;
  return EventId{slot, s.generation};
}

bool EventQueue::cancel(EventId id) {
  if (!id.valid() || id.slot >= slots_.size()) return false;
  if (slots_[id.slot].generation != id.generation) return false;
  ++slots_[id.slot].generation;
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
  Slot& s = slots_[top.slot];
  const Event e{SimTime::from_ns(top.time), top.key & kMaxSeq, s.handler,
                static_cast<Band>(top.key >> 56), s.a, s.b};
  s.generation = top.generation + 1;  // live, so the slot's generation is the entry's
  free_slots_.push_back(top.slot);
  --live_;
  return e;
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
  GOODSIM_CHECK(slots_.size() < UINT32_MAX);
  slots_.emplace_back();
  return static_cast<uint32_t>(slots_.size() - 1);
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

}  // namespace goodsim::core
