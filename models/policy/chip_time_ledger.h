// Chip-time accounting (docs/architecture.md section 4).
//
// Every chip-second of the horizon is charged to exactly one category. A policy
// describes its current state as a split of the fleet's chips over categories;
// the ledger integrates that split exactly over simulated time, so the sum
// invariant is checked without rounding: the categories sum to chips x elapsed
// time.
//
// Units: a split is in chip units of 1/kChipScale chip, so a policy can charge
// fractions of a chip's time (of a step, a chip computes for part of the time
// and waits for the rest; see RunningSplit). Totals are chip-units x
// nanoseconds in 128-bit integers.
//
// Work can be reclassified after the fact (computed steps rolled back become
// lost_work) with move(); moves keep the sum. Policies move exactly chip-time
// they charged (taken from the ledger or from a StepCharge), never an amount
// recomputed from steps x step time.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "sim/core/time.h"

namespace goodsim::models::policy {

enum class Category : uint8_t {
  kProductive = 0,
  kDown,
  kIdle,
  kReconfigure,
  kCheckpoint,
  kLostWork,
  kStragglerWait,
  kSyncWait,
};
inline constexpr size_t kCategoryCount = 8;
std::string_view category_name(Category c);

__extension__ using ChipNanos = __int128;  // chip-units x nanoseconds
inline constexpr uint64_t kChipScale = uint64_t{1} << 16;
inline constexpr uint64_t chip_units(uint64_t chips) { return chips * kChipScale; }

class ChipTimeLedger {
 public:
  using Split = std::array<uint64_t, kCategoryCount>;  // chip units per category

  // `chips` is the fleet size the split must always sum to.
  explicit ChipTimeLedger(uint64_t chips);

  // Integrates the current split from the last call up to `now`.
  // REQUIRES: now >= the previous advance time.
  void advance(core::SimTime now);
  // Integrates up to `now`, then switches to `split`.
  // REQUIRES: split sums to chip_units(chips()).
  void set_split(core::SimTime now, const Split& split);
  // Recharges chip-time already integrated from one category to another;
  // `amount` in chip-units x ns. REQUIRES: `amount` <= what `from` holds.
  void move(Category from, Category to, ChipNanos amount);
  const Split& split() const { return split_; }
  ChipNanos total(Category c) const { return totals_[static_cast<size_t>(c)]; }
  double chip_seconds(Category c) const;
  uint64_t chips() const { return chips_; }
  core::SimTime last_advance() const { return last_; }
  // Aborts through GOODSIM_CHECK unless the categories sum to
  // chip_units(chips) x (last advance - start) exactly.
  void check_invariant() const;

 private:
  uint64_t chips_;
  Split split_{};
  std::array<ChipNanos, kCategoryCount> totals_{};
  core::SimTime last_;
};

// Adds `part` to `into`, category by category (integer sums: exact in any order).
inline void add_split(ChipTimeLedger::Split& into, const ChipTimeLedger::Split& part) {
  for (size_t c = 0; c < into.size(); ++c) into[c] += part[c];
}

// What a running synchronous group charges per category, in chip units.
// Each step takes `step` = base x s_max + c: the group waits for its slowest
// active slice (slowdown s_max) and for the non-overlapped communication c. A
// chip of a slice with slowdown s computes for base x s of it: productive,
// whatever makes it slower (an older generation, a slow member, a transient
// slowdown); it then waits base x (s_max - s) for the slowest slice
// (straggler_wait) and c for communication (sync_wait). Rounded down to whole
// chip units, the rest going to sync_wait, so the three sum to the group's units.
struct RunningSplit {
  uint64_t productive = 0;
  uint64_t straggler_wait = 0;
  uint64_t sync_wait = 0;

  // `slices` active slices of `units_per_slice` chip units each, whose
  // slowdowns sum to `sum_slowdown` (>= slices) with maximum `max_slowdown`.
  static RunningSplit of(uint64_t units_per_slice, uint64_t slices, double sum_slowdown,
                         double max_slowdown, core::Duration base, core::Duration step);
  void add_to(ChipTimeLedger::Split& split) const;
};

}  // namespace goodsim::models::policy
