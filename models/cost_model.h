// Prices a policy's run with the scenario's "cost" section (docs/metrics.md, "Cost").
//
// Rental: every slice is reserved for the whole run, spares at spare_price of
// their price, so the fleet costs R per second,
//   R = sum over slices of chips_per_slice x price(slice) x share(slice) / 3600.
// A category's rental is its share of the fleet's chip-time: chip_seconds[c] x R / chips.
// Energy: a chip draws chip_power while at work (every category but down and
// idle), idle_power while idle and nothing while down; a category's energy cost
// is chip_seconds[c] x watts / 3.6e6 x kwh. The run's cost is the sum of the
// categories', so they add up to it.
// WAN: the run's wan_bytes (bytes sent between sites, comm_model.h) cost
// wan_bytes / 1e9 x wan_price_per_gb, added to the total:
//   total = sum over categories (rental + energy) + wan.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "models/policy/chip_time_ledger.h"
#include "sim/cluster/layout.h"
#include "sim/output/run_result.h"
#include "sim/scenario/error.h"
#include "sim/scenario/scenario.h"

namespace goodsim::models {

struct CostRates {
  std::string currency;
  double fleet_per_second = 0;  // R above: currency per second for the whole cluster
  uint64_t chips = 0;
  std::optional<scenario::EnergySpec> energy;
  double wan_price_per_gb = 0;  // currency per 1e9 bytes sent between sites
};

// Resolves s.cost against the layout and the scenario's hardware_generations
// entries (a price naming an unknown generation is an error at its key, added
// to `errors`). REQUIRES: s.cost.
CostRates resolve_cost(const scenario::Scenario& s, const cluster::Layout& layout,
                       scenario::ErrorList& errors);

// What the run used: chip-seconds per category (in Category order) over its
// `end_s` seconds, its tokens, WAN bytes and time to target.
struct RunUsage {
  std::array<double, policy::kCategoryCount> chip_seconds{};
  double end_s = 0;
  double tokens = 0;
  double wan_bytes = 0;
  std::optional<double> time_to_target_s;
};

// The cost of a run.
output::CostResult price_run(const CostRates& rates, const RunUsage& usage);

}  // namespace goodsim::models
