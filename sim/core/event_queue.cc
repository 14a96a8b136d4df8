#include "sim/core/event_queue.h"

#include <algorithm>
#include <bit>

#include "sim/core/check.h"

namespace goodsim::core {
namespace {
// Sweep only when stale entries dominate, so the cost amortises to O(1) per
// cancellation.
constexpr size_t kMinStaleForSweep = 1024;
}  // namespace

bool EventQueue::cancel(EventId id) {
  if (!id.valid() || id.slot >= slots_.size()) return false;
  if (slots_[id.slot].key != id.key) return false;
  slots_[id.slot].key = kFreeSlot;  // recycled when its entry is dropped
  --live_;
  ++stale_;
  if (stale_ >= kMinStaleForSweep && stale_ > live_) sweep_stale();
  return true;
}

Event EventQueue::pop() {
  settle();
  GOODSIM_CHECK(!near_.empty());
  return take();
}

SimTime EventQueue::next_time() {
  settle();
  GOODSIM_CHECK(!near_.empty());
  return SimTime::from_ns(time_ns(near_.top().time));
}

void EventQueue::mark_empty(size_t i) {
  occupied_[i / 64] &= ~(uint64_t{1} << (i % 64));
  --occupied_count_;
}

size_t EventQueue::first_occupied() const {
  size_t w = 0;
  while (occupied_[w] == 0) ++w;
  return w * 64 + static_cast<size_t>(std::countr_zero(occupied_[w]));
}

void EventQueue::settle() {
  if (stale_ > 0) drop_stale_tops();
  while (near_.empty() && occupied_count_ != 0) {
    refill();
    if (stale_ > 0) drop_stale_tops();
  }
}

void EventQueue::drop_stale_tops() {
  while (!near_.empty() && is_stale(near_.top().slot)) {
    free_slot(near_.top().slot);
    near_.pop();
    --stale_;
  }
}

void EventQueue::drop_stale(std::vector<Entry>& bucket) {
  const size_t before = bucket.size();
  std::erase_if(bucket, [this](const Entry& e) {
    if (!is_stale(e.slot)) return false;
    free_slot(e.slot);
    return true;
  });
  stale_ -= before - bucket.size();
}

void EventQueue::refill() {
  const size_t i = first_occupied();
  std::vector<Entry>& from = buckets_[i];
  mark_empty(i);
  if (stale_ > 0) drop_stale(from);
  if (from.empty()) return;
  if (from.size() <= kNearMax) {
    // The whole bucket goes to near_, and with it the rest of its time range.
    const int shift = static_cast<int>(i / kDigits) * kDigitBits;
    const uint64_t prefix = from.front().time >> shift;
    // The last range of all ends at the largest time, which near_end_ (exclusive) cannot
    // say: near_to_max_ does, and near_ then takes every later push.
    near_to_max_ = prefix == (UINT64_MAX >> shift);
    near_end_ = near_to_max_ ? UINT64_MAX : (prefix + 1) << shift;
    for (const Entry& e : from) near_.append_unordered(KeyedEntry{e.time, slots_[e.slot].key, e.slot});
    near_.restore();
  } else {
    uint64_t earliest = from.front().time;
    for (const Entry& e : from) earliest = std::min(earliest, e.time);
    base_ = earliest;
    near_to_max_ = earliest == UINT64_MAX;  // then every entry is at the largest time
    near_end_ = near_to_max_ ? UINT64_MAX : earliest + 1;
    for (const Entry& e : from) place(e);  // every entry lands in near_ or a lower digit
  }
  from.clear();
}

void EventQueue::seq_exhausted() { GOODSIM_CHECK_MSG(false, "event sequence counter exhausted"); }

uint32_t EventQueue::grow_slots() {
  GOODSIM_CHECK(slots_.size() < UINT32_MAX);
  slots_.push_back(Slot{kFreeSlot, 0, 0, 0});
  return static_cast<uint32_t>(slots_.size() - 1);
}

void EventQueue::sweep_stale() {
  auto stale = [this](const KeyedEntry& e) {
    if (!is_stale(e.slot)) return false;
    free_slot(e.slot);
    return true;
  };
  near_.erase_if(stale);
  for (size_t i = 0; i < kBuckets; ++i) {
    if (buckets_[i].empty()) continue;
    std::erase_if(buckets_[i], [&](const Entry& e) { return stale(KeyedEntry{0, 0, e.slot}); });
    if (buckets_[i].empty()) mark_empty(i);
  }
  stale_ = 0;
}

SimTime EventQueue::next_time_excluding(HandlerId h) const {
  uint64_t first = UINT64_MAX;
  auto consider = [&](uint64_t time, uint32_t slot) {
    if (!is_stale(slot) && slots_[slot].handler != h) first = std::min(first, time);
  };
  for (const KeyedEntry& e : near_.items()) consider(e.time, e.slot);
  for (const std::vector<Entry>& bucket : buckets_) {
    for (const Entry& e : bucket) consider(e.time, e.slot);
  }
  return SimTime::from_ns(time_ns(first));
}

}  // namespace goodsim::core
