#include "models/policy/chip_time_ledger.h"

#include <algorithm>
#include <numeric>

#include "sim/core/check.h"

namespace goodsim::models::policy {

std::string_view category_name(Category c) {
  switch (c) {
    case Category::kProductive: return "productive";
    case Category::kDown: return "down";
    case Category::kIdle: return "idle";
    case Category::kReconfigure: return "reconfigure";
    case Category::kCheckpoint: return "checkpoint";
    case Category::kLostWork: return "lost_work";
    case Category::kStragglerWait: return "straggler_wait";
    case Category::kSyncWait: return "sync_wait";
  }
  return "?";
}

ChipTimeLedger::ChipTimeLedger(uint64_t chips) : chips_(chips) {
  split_[static_cast<size_t>(Category::kIdle)] = chip_units(chips);
}

void ChipTimeLedger::advance(core::SimTime now) {
  GOODSIM_CHECK(now >= last_);
  const ChipNanos dt = (now - last_).ns();
  for (size_t i = 0; i < kCategoryCount; ++i) totals_[i] += dt * static_cast<ChipNanos>(split_[i]);
  last_ = now;
}

void ChipTimeLedger::set_split(core::SimTime now, const Split& split) {
  advance(now);
  const uint64_t sum = std::accumulate(split.begin(), split.end(), uint64_t{0});
  GOODSIM_CHECK_MSG(sum == chip_units(chips_), "chip split does not cover the fleet exactly");
  split_ = split;
}

void ChipTimeLedger::move(Category from, Category to, ChipNanos amount) {
  GOODSIM_CHECK(amount >= 0);
  GOODSIM_CHECK_MSG(totals_[static_cast<size_t>(from)] >= amount,
                    "reclassifying more chip-time than the category holds");
  totals_[static_cast<size_t>(from)] -= amount;
  totals_[static_cast<size_t>(to)] += amount;
}

double ChipTimeLedger::chip_seconds(Category c) const {
  return static_cast<double>(totals_[static_cast<size_t>(c)]) /
         (static_cast<double>(kChipScale) * core::kNanosPerSecond);
}

void ChipTimeLedger::check_invariant() const {
  ChipNanos sum = 0;
  for (ChipNanos t : totals_) {
    GOODSIM_CHECK_MSG(t >= 0, "negative chip-time in a category");
    sum += t;
  }
  GOODSIM_CHECK_MSG(sum == static_cast<ChipNanos>(chip_units(chips_)) * last_.ns(),
                    "chip-time categories do not sum to chips x horizon");
}

RunningSplit RunningSplit::of(uint64_t units_per_slice, uint64_t slices, double sum_slowdown,
                              double max_slowdown, core::Duration base, core::Duration step) {
  const double d = static_cast<double>(step.ns());
  const double b = static_cast<double>(base.ns());
  const uint64_t units = units_per_slice * slices;
  const double ratio = b / d;
  const auto share = [&](double chip_units) {
    return static_cast<uint64_t>(std::clamp(chip_units * ratio, 0.0, static_cast<double>(units)));
  };
  RunningSplit r;
  const uint64_t computing_or_waiting = share(static_cast<double>(units) * max_slowdown);
  r.productive = std::min(share(static_cast<double>(units_per_slice) * sum_slowdown),
                          computing_or_waiting);
  r.straggler_wait = computing_or_waiting - r.productive;
  r.sync_wait = units - computing_or_waiting;
  return r;
}

void RunningSplit::add_to(ChipTimeLedger::Split& split) const {
  split[static_cast<size_t>(Category::kProductive)] += productive;
  split[static_cast<size_t>(Category::kStragglerWait)] += straggler_wait;
  split[static_cast<size_t>(Category::kSyncWait)] += sync_wait;
}

}  // namespace goodsim::models::policy
