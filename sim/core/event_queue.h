// The pending-event set of a simulation.
//
// Events are small PODs ordered totally by (time, band, seq): `band` lets a
// model say "at the same instant, state changes before reactions before
// observations"; `seq` is the queue's insertion counter, so two events with
// equal time and band run in the order they were scheduled. Nothing is ordered
// by pointer or hash.
//
// Implementation: a 4-ary min-heap (dary_heap.h) of 40-byte entries that carry
// the handler and payload with the key, so taking the earliest event reads
// nothing outside the heap. A slot table holds, per pending event, only its
// key (band and seq, unique over the queue's life), for cancellation and
// EventId checks. Cancellation is lazy: cancelling frees the slot, so the
// heap entry becomes stale and is discarded when it reaches the top (or when
// stale entries outnumber live ones, by a rebuild); while nothing is
// cancelled the top is never checked. pop() leaves the popped entry in place
// and the next push() overwrites it with one sift (the usual "take the
// earliest, schedule a successor" pattern costs one sift instead of two); any
// other operation removes it first. No allocation per event once the vectors
// have grown to the peak size.
#pragma once

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

  // Adds an event; seq is assigned from the insertion counter.
  EventId push(SimTime time, Band band, HandlerId handler, uint64_t a, uint64_t b);
  // Removes a pending event. Returns false if it already ran or was cancelled.
  bool cancel(EventId id);
  // Removes and returns the earliest live event. REQUIRES: !empty().
  Event pop();
  // Time of the earliest live event. REQUIRES: !empty().
  SimTime next_time();
  // Time of the earliest live event of any handler but `h`; SimTime::max()
  // if there is none. O(entries): for rare questions.
  SimTime next_time_excluding(HandlerId h) const;

  bool empty() const { return live_ == 0; }
  size_t size() const { return live_; }
  uint64_t pushed() const { return next_seq_; }

 private:
  // The payload travels with the key, so taking the top reads nothing else.
  struct Entry {
    int64_t time;
    uint64_t key;  // band in the top 8 bits, seq below: one compare orders both
    uint64_t a;
    uint64_t b;
    HandlerId handler;
    uint32_t slot;
  };
  struct Before {
    bool operator()(const Entry& x, const Entry& y) const {
      return x.time < y.time || (x.time == y.time && x.key < y.key);
    }
  };
  static constexpr uint64_t kFreeSlot = UINT64_MAX;  // no key has all 64 bits set

  uint32_t allocate_slot();
  bool is_stale(const Entry& e) const { return live_keys_[e.slot] != e.key; }
  // Removes the entry pop() left at the top, then every stale one above the
  // earliest live entry.
  void settle();
  void rebuild_without_stale();

  DaryHeap<Entry, Before> heap_;
  std::vector<uint64_t> live_keys_;  // per slot: the key of its pending event, or kFreeSlot
  std::vector<uint32_t> free_slots_;
  uint64_t next_seq_ = 0;
  size_t live_ = 0;
  size_t stale_ = 0;
  bool popped_top_ = false;  // the top entry was returned by pop(), not yet removed
};

}  // namespace goodsim::core
