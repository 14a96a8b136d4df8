// The pending-event set of a simulation.
//
// Events are small PODs ordered totally by (time, band, seq): `band` lets a
// model say "at the same instant, state changes before reactions before
// observations"; `seq` is the queue's insertion counter, so two events with
// equal time and band run in the order they were scheduled. Nothing is ordered
// by pointer or hash.
//
// Implementation: a 4-ary min-heap of 24-byte keys. Payloads live in a slot
// table that never moves during sifts. Cancellation is lazy: cancelling bumps
// the slot's generation, so the heap entry becomes stale and is discarded when
// it reaches the top (or when stale entries outnumber live ones, by a rebuild).
// No allocation per event once the vectors have grown to the peak size.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/core/time.h"

namespace goodsim::core {

using HandlerId = uint32_t;
using Band = uint8_t;

// Identifies a scheduled event for cancellation. Ids stay safe to cancel after
// the event ran or was cancelled: the generation no longer matches.
struct EventId {
  uint32_t slot = UINT32_MAX;
  uint32_t generation = 0;
  bool valid() const { return slot != UINT32_MAX; }
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

  bool empty() const { return live_ == 0; }
  size_t size() const { return live_; }
  uint64_t pushed() const { return next_seq_; }

 private:
  struct Entry {
    int64_t time;
    uint64_t key;  // band in the top 8 bits, seq below: one compare orders both
    uint32_t slot;
    uint32_t generation;
  };
  struct Slot {
    uint32_t generation = 0;
    HandlerId handler = 0;
    uint64_t a = 0;
    uint64_t b = 0;
  };

  static bool before(const Entry& x, const Entry& y) {
    return x.time < y.time || (x.time == y.time && x.key < y.key);
  }
  uint32_t allocate_slot();
  void release_slot(uint32_t slot);
  bool is_stale(const Entry& e) const { return slots_[e.slot].generation != e.generation; }
  void drop_stale_top();
  void remove_top();
  void sift_up(size_t i);
  void sift_down(size_t i);
  void rebuild_without_stale();

  std::vector<Entry> heap_;
  std::vector<Slot> slots_;
  std::vector<uint32_t> free_slots_;
  uint64_t next_seq_ = 0;
  size_t live_ = 0;
  size_t stale_ = 0;
};

}  // namespace goodsim::core
