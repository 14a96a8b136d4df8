// The pending-event set of a simulation.
//
// Events are small PODs ordered totally by (time, band, seq): `band` lets a
// model say "at the same instant, state changes before reactions before
// observations"; `seq` is the queue's insertion counter, so two events with
// equal time and band run in the order they were scheduled. Nothing is ordered
// by pointer or hash.
//
// Implementation: a radix heap over the event times, which a simulation only
// ever schedules at or after the time of the event it last took, in front of
// which a small 4-ary heap (dary_heap.h), `near_`, holds every event before
// `near_end_` fully ordered by (time, band, seq). Times are read as 16
// hexadecimal digits. Relative to `base_`, an event at or after near_end_
// whose time first differs from base_ in digit L, where its digit is d, waits
// unsorted in bucket (L, d); a bucket's times form one interval, and the
// buckets in (L, d) order hold increasing intervals, all after near_end_.
// When near_ runs dry, the first non-empty bucket is emptied: if it holds at
// most kNearMax entries, they all go to near_ (built in O(k)) and near_end_
// moves to the end of the bucket's interval; otherwise its earliest time
// becomes base_ and near_end_ just after it, and each of its entries goes to
// near_ or drops to a bucket of a lower digit. An event therefore moves at
// most 16 times, and in practice two or three: push is O(1), pop O(1)
// amortised plus a heap of at most kNearMax entries, and every move is part
// of a sequential scan of one bucket, where a binary heap of millions of
// events takes a cache miss per level. Any time is accepted: one before
// near_end_ goes to near_.
//
// Buckets hold 16-byte entries (time, slot); the slot table holds each
// pending event's key (band and seq, unique over the queue's life), handler
// and payload, read once when the event reaches near_ and once when it is
// taken. Cancellation is lazy: cancelling clears the slot's key, so its entry
// becomes stale; the slot is recycled when the entry is dropped, as its
// bucket is emptied or it reaches the top of near_ (or, when stale entries
// outnumber live ones, by a sweep of every bucket). No allocation per event
// once the vectors have grown to their peak sizes.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/core/dary_heap.h"
#include "sim/core/time.h"

namespace goodsim::core {

using HandlerId = uint32_t;
using Band = uint8_t;

// Identifies a scheduled event for cancellation. Ids stay safe to cancel after
// the event ran or was cancelled: the slot no longer holds their key.
struct EventId {
  uint32_t slot = UINT32_MAX;
  uint64_t key = 0;  // the event's band and seq, unique over the queue's life
  bool valid() const { return slot != UINT32_MAX; }
  bool operator==(const EventId&) const = default;
};

struct Event {
  SimTime time;
  uint64_t seq = 0;
  HandlerId handler = 0;
  Band band = 0;
  uint64_t a = 0;  // payload words, meaning is the handler's
  uint64_t b = 0;
};

class EventQueue {
 public:
  static constexpr uint64_t kMaxSeq = (uint64_t{1} << 56) - 1;

  // Adds an event; seq is assigned from the insertion counter. Any time is
  // accepted (see above).
  EventId push(SimTime time, Band band, HandlerId handler, uint64_t a, uint64_t b) {
    if (next_seq_ >= kMaxSeq) seq_exhausted();
    const uint32_t slot = allocate_slot();
    const uint64_t key = (uint64_t{band} << 56) | next_seq_++;
    slots_[slot] = Slot{key, a, b, handler};
    const uint64_t t = time_bits(time.ns());
    if (in_near(t)) {
      near_.push(KeyedEntry{t, key, slot});
    } else {
      place_in_bucket(Entry{t, slot});
    }
    ++live_;
    return EventId{slot, key};
  }
  // Removes a pending event. Returns false if it already ran or was cancelled.
  bool cancel(EventId id);
  // Removes and returns the earliest live event. REQUIRES: !empty().
  Event pop();
  // Like pop() when the queue holds a live event at or before `end`: stores it
  // in `out` and returns true; otherwise returns false and changes nothing
  // observable. One look at the queue where next_time() then pop() takes two.
  bool pop_until(SimTime end, Event& out) {
    if (stale_ != 0 || near_.empty()) settle();
    if (near_.empty() || near_.top().time > time_bits(end.ns())) return false;
    out = take();
    return true;
  }
  // Time of the earliest live event. REQUIRES: !empty().
  SimTime next_time();
  // Time of the earliest live event of any handler but `h`; SimTime::max()
  // if there is none. O(entries): for rare questions.
  SimTime next_time_excluding(HandlerId h) const;

  bool empty() const { return live_ == 0; }
  size_t size() const { return live_; }
  uint64_t pushed() const { return next_seq_; }

 private:
  struct Slot {  // a pending event, or a cancelled one whose entry is still queued
    uint64_t key;  // band in the top 8 bits, seq below; kFreeSlot once cancelled or taken
    uint64_t a;
    uint64_t b;
    HandlerId handler;
  };
  struct Entry {     // in buckets_
    uint64_t time;   // the time's bits, offset so that unsigned order is time order
    uint32_t slot;
  };
  struct KeyedEntry {  // in near_
    uint64_t time;
    uint64_t key;      // a copy of the slot's, so heap compares stay in the heap
    uint32_t slot;
  };
  struct Before {
    bool operator()(const KeyedEntry& x, const KeyedEntry& y) const {
      return x.time < y.time || (x.time == y.time && x.key < y.key);
    }
  };
  using Heap = DaryHeap<KeyedEntry, Before>;
  static constexpr int kDigitBits = 4;
  static constexpr size_t kDigits = size_t{1} << kDigitBits;
  static constexpr size_t kBuckets = 64 / kDigitBits * kDigits;  // index: digit x kDigits + value
  static constexpr size_t kWords = kBuckets / 64;
  static constexpr size_t kNearMax = 64;  // a bucket this small goes to near_ whole
  static constexpr uint64_t kFreeSlot = UINT64_MAX;  // no key has all 64 bits set

  // Signed nanoseconds to an unsigned value of the same order, and back.
  static constexpr uint64_t time_bits(int64_t ns) {
    return static_cast<uint64_t>(ns) ^ (uint64_t{1} << 63);
  }
  static constexpr int64_t time_ns(uint64_t bits) {
    return static_cast<int64_t>(bits ^ (uint64_t{1} << 63));
  }
  [[noreturn]] static void seq_exhausted();
  uint32_t allocate_slot() {
    if (free_slots_.empty()) return grow_slots();
    const uint32_t slot = free_slots_.back();
    free_slots_.pop_back();
    return slot;
  }
  uint32_t grow_slots();
  void free_slot(uint32_t slot) { free_slots_.push_back(slot); }
  bool is_stale(uint32_t slot) const { return slots_[slot].key == kFreeSlot; }
  // Whether time bits `t` belong in near_ rather than a bucket.
  bool in_near(uint64_t t) const { return t < near_end_ || near_to_max_; }
  // REQUIRES: t > base_.
  size_t bucket_of(uint64_t t) const {
    const int digit = (std::bit_width(t ^ base_) - 1) / kDigitBits;
    const uint64_t value = (t >> (digit * kDigitBits)) & (kDigits - 1);
    return static_cast<size_t>(digit) * kDigits + static_cast<size_t>(value);
  }
  void place(Entry e) {
    if (in_near(e.time)) {
      near_.push(KeyedEntry{e.time, slots_[e.slot].key, e.slot});
    } else {
      place_in_bucket(e);
    }
  }
  // REQUIRES: !in_near(e.time).
  void place_in_bucket(Entry e) {
    const size_t i = bucket_of(e.time);
    std::vector<Entry>& bucket = buckets_[i];
    if (bucket.empty()) {
      occupied_[i / 64] |= uint64_t{1} << (i % 64);
      ++occupied_count_;
    }
    bucket.push_back(e);
  }
  void mark_empty(size_t i);
  size_t first_occupied() const;  // REQUIRES: occupied_count_ > 0
  // Drops stale entries at the top of near_ and refills it while it is empty
  // and the buckets are not: afterwards near_'s top is the earliest live event.
  void settle();
  // Empties the first non-empty bucket (see above).
  void refill();
  // Drops the stale entries of a bucket, recycling their slots.
  void drop_stale(std::vector<Entry>& bucket);
  void drop_stale_tops();
  // Removes the top of near_ and returns it as an Event.
  Event take() {
    const KeyedEntry top = near_.top();
    near_.pop();
    Slot& s = slots_[top.slot];
    const Event e{SimTime::from_ns(time_ns(top.time)), top.key & kMaxSeq, s.handler,
                  static_cast<Band>(top.key >> 56), s.a, s.b};
    s.key = kFreeSlot;
    free_slot(top.slot);
    --live_;
    return e;
  }
  void sweep_stale();

  Heap near_;                  // every entry before near_end_, by (time, key)
  uint64_t near_end_ = 1;      // > base_
  bool near_to_max_ = false;   // near_ also holds the largest time (near_end_ == UINT64_MAX)
  uint64_t base_ = 0;          // the bucket digits are relative to it
  std::array<std::vector<Entry>, kBuckets> buckets_;
  std::array<uint64_t, kWords> occupied_{};  // bit i set when buckets_[i] is non-empty
  size_t occupied_count_ = 0;                // non-empty buckets
  std::vector<Slot> slots_;
  std::vector<uint32_t> free_slots_;
  uint64_t next_seq_ = 0;
  size_t live_ = 0;
  size_t stale_ = 0;
};

}  // namespace goodsim::core
