// Chip-time accounting (docs/architecture.md section 4).
//
// Every chip-second of the horizon is charged to exactly one category. A policy
// describes its current state as a split of the fleet's chips over categories;
// the ledger integrates that split exactly over simulated time, so the sum
// invariant is checked without rounding: the categories sum to chips x elapsed
// time.
//
// Units: a split is in chip units of 1/kChipScale chip, so a policy can charge
// fractions of a chip's time (a group slowed by a factor s computes only 1/s of
// the time; the rest is straggler_wait). Totals are chip-units x nanoseconds in
// 128-bit integers.
//
// Work can be reclassified after the fact (computed steps rolled back become
// lost_work) with move(); moves keep the sum.
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
  // Like move(), for an amount computed from the model (steps x step time) rather than
  // taken from the integrated split: the split's whole chip-units and the step clock's
  // floating-point progress can leave `from` a few chip-unit nanoseconds short of such an
  // exact figure. Moves min(amount, what `from` holds). REQUIRES: the shortfall is at most
  // `slack` (a larger one is a broken invariant, as for move()).
  void move_computed(Category from, Category to, ChipNanos amount, ChipNanos slack);

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

// Adds `units` chip units of a running synchronous group to `split`: of each
// step of duration `step`, `base` is productive, base x (slowdown - 1)
// straggler_wait and the rest (communication) sync_wait.
void add_running_split(ChipTimeLedger::Split& split, uint64_t units, core::Duration base,
                       core::Duration step, double slowdown);

}  // namespace goodsim::models::policy
