#include "sim/scenario/cost_spec.h"

#include <fmt/format.h>

#include "sim/scenario/scenario.h"

namespace goodsim::scenario {
namespace {

constexpr const char* kPriceUnit = "currency/chip-hour";

void check_site(ObjectReader& p, const std::string& site, const ClusterSpec& cluster) {
  std::vector<std::string> names;
  for (const SiteSpec& s : cluster.sites) {
    if (s.name == site) return;
    names.push_back(s.name);
  }
  std::string msg = fmt::format("unknown site \"{}\"", site);
  if (auto best = closest_match(site, names)) msg += fmt::format("; did you mean \"{}\"?", *best);
  p.fail("site", msg);
}

PriceRule read_rule(ObjectReader& p, const ClusterSpec& cluster) {
  PriceRule rule;
  rule.path = p.path();
  rule.site = p.string("site", "", "the slices of this site (by name); absent: any site");
  rule.generation = p.string("generation", "",
                             "the slices of this hardware_generations entry (by name); "
                             "absent: any generation");
  rule.chip_hour = p.unit(kPriceUnit).number("chip_hour", "price per chip-hour of these slices", 0);
  if (p.describing()) return rule;
  if (rule.site.empty() && rule.generation.empty()) {
    p.fail("", "expected \"site\", \"generation\" or both (the default price is cost.chip_hour)");
  }
  if (!rule.site.empty() && !cluster.sites.empty()) check_site(p, rule.site, cluster);
  return rule;
}

void check_distinct(ObjectReader& c, const std::vector<PriceRule>& rules) {
  for (size_t i = 0; i < rules.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (rules[i].site == rules[j].site && rules[i].generation == rules[j].generation) {
        c.fail(fmt::format("prices.{}", i),
               fmt::format("the same site and generation as prices.{}: expected one price each", j));
      }
    }
  }
}

EnergySpec read_energy(ObjectReader& e) {
  EnergySpec s;
  s.chip_power = e.unit("W").number("chip_power", "power drawn by a chip at work (not down, "
                                    "not idle)", 0);
  s.idle_power = e.unit("W").optional_number("idle_power", "power drawn by an idle chip "
                                             "(default: chip_power)", 0)
                     .value_or(s.chip_power);
  s.kwh = e.unit("currency/kWh").number("kwh", "price of a kilowatt-hour", 0);
  return s;
}

}  // namespace

std::optional<CostSpec> parse_cost(ObjectReader& r, const ClusterSpec& cluster) {
  std::optional<ObjectReader> c =
      r.optional_object("cost", "prices: chip-hours by site and generation, spares, energy");
  if (!c) return std::nullopt;
  CostSpec s;
  s.currency = c->string("currency", "USD", "label of the figures (no conversion)");
  s.chip_hour = c->unit(kPriceUnit).number("chip_hour", "price per chip-hour of every slice "
                                           "no entry of prices matches", 0);
  for (ObjectReader& p : c->optional_object_list("prices", "prices per chip-hour by site and "
                                                 "hardware generation; the most specific wins")) {
    s.prices.push_back(read_rule(p, cluster));
  }
  if (!c->describing()) check_distinct(*c, s.prices);
  s.spare_price = c->fraction("spare_price", 1.0, "share of its price a spare slice costs "
                              "(reserved capacity; 1: full price)");
  if (auto e = c->optional_object("energy", "electricity: chip power and its price")) {
    s.energy = read_energy(*e);
  }
  s.wan_price_per_gb = c->unit("currency/GB").number(
      "wan_price_per_gb", 0.0, "price of a GB (1e9 bytes) sent between sites (the run's "
      "wan_bytes)", 0);
  return s;
}

}  // namespace goodsim::scenario
