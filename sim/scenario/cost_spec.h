// The scenario's optional "cost" section: what the capacity and its energy cost
// (docs/metrics.md, "Cost"; the keys: docs/scenario.md).
//
//   "cost": {
//     "currency": "USD",
//     "chip_hour": 2.0,                            // price per chip-hour, every slice
//     "prices": [ { "site": "dc-b", "chip_hour": 1.6 },
//                 { "generation": "older", "chip_hour": 1.2 } ],
//     "spare_price": 0.5,                          // spares cost this fraction of the price
//     "energy": { "chip_power": 700, "idle_power": 300, "kwh": 0.08 },
//     "wan_price_per_gb": 0.02                     // per GB (1e9 bytes) sent between sites
//   }
//
// A slice's price per chip-hour is that of the most specific entry of "prices"
// that matches it (site and generation > generation > site), else "chip_hour".
// Generation names are those of the scenario's hardware_generations entries;
// they are checked by the models layer, which knows them. Site names are
// checked here.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sim/scenario/reader.h"

namespace goodsim::scenario {

struct ClusterSpec;

struct PriceRule {
  std::string site;        // empty: any site
  std::string generation;  // empty: any generation
  double chip_hour = 0;    // currency per chip-hour
  std::string path;        // "cost.prices.<i>", for messages
};

struct EnergySpec {
  double chip_power = 0;  // W drawn by a chip that is not down and not idle
  double idle_power = 0;  // W drawn by an idle chip (a spare, a waiting slice)
  double kwh = 0;         // currency per kWh
};

struct CostSpec {
  std::string currency = "USD";  // a label for tables and docs
  double chip_hour = 0;          // currency per chip-hour
  std::vector<PriceRule> prices;
  double spare_price = 1;        // fraction of its price a spare slice costs (reserved)
  std::optional<EnergySpec> energy;
  double wan_price_per_gb = 0;   // currency per GB (1e9 bytes) of WAN traffic
};

// Reads "cost" through `r` (the scenario's root reader); nullopt when absent.
// Throws (or, collecting, records) ScenarioError on bad values or unknown sites.
std::optional<CostSpec> parse_cost(ObjectReader& r, const ClusterSpec& cluster);

}  // namespace goodsim::scenario
