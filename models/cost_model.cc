#include "models/cost_model.h"

#include <fmt/format.h>

#include <variant>
#include <vector>

#include "models/straggler/hardware_generations.h"

namespace goodsim::models {
namespace {

using scenario::PriceRule;
constexpr const char* kGenerationsType = "hardware_generations";

// The generation name of every slice ("" for none), from the hardware_generations entries
// (already validated by prepare()).
std::vector<std::string> slice_generations(const scenario::Scenario& s, const cluster::Layout& layout,
                                           std::vector<std::string>& names) {
  std::vector<std::string> of(layout.slices());
  for (const scenario::ModelEntry& e : s.stragglers) {
    if (!e.json.is_object() || e.json.value("type", "") != kGenerationsType) continue;
    scenario::ObjectReader r(e.json, e.path, s.file);
    const auto config = straggler::HardwareGenerationsConfig::from_json(r);
    const auto ranges = config.resolve(layout);
    const auto* list = std::get_if<std::vector<straggler::HardwareGenerationsConfig::SliceRange>>(&ranges);
    if (list == nullptr) continue;  // prepare() reports it
    for (size_t g = 0; g < list->size(); ++g) {
      names.push_back(config.generations[g].name);
      for (uint32_t k = 0; k < (*list)[g].count; ++k) of[(*list)[g].first + k] = names.back();
    }
  }
  return of;
}

// 2: site and generation, 1: generation, 0: site; -1: the rule does not match.
int specificity(const PriceRule& rule, const std::string& site, const std::string& generation) {
  if (!rule.site.empty() && rule.site != site) return -1;
  if (!rule.generation.empty() && rule.generation != generation) return -1;
  return rule.generation.empty() ? 0 : (rule.site.empty() ? 1 : 2);
}

double slice_price(const scenario::CostSpec& c, const std::string& site, const std::string& generation) {
  int best = -1;
  double price = c.chip_hour;
  for (const PriceRule& rule : c.prices) {
    const int level = specificity(rule, site, generation);
    if (level > best) best = level, price = rule.chip_hour;
  }
  return price;
}

void check_generations(const scenario::Scenario& s, const std::vector<std::string>& names,
                       scenario::ErrorList& errors) {
  for (const PriceRule& rule : s.cost->prices) {
    if (rule.generation.empty()) continue;
    if (std::find(names.begin(), names.end(), rule.generation) != names.end()) continue;
    std::string msg = fmt::format("no hardware_generations entry is named \"{}\"", rule.generation);
    if (auto best = scenario::closest_match(rule.generation, names))
      msg += fmt::format("; did you mean \"{}\"?", *best);
    errors.add(scenario::ScenarioError(s.file ? *s.file : "", rule.path + ".generation", msg));
  }
}

double watts(const scenario::EnergySpec& e, policy::Category c) {
  if (c == policy::Category::kDown) return 0;
  return c == policy::Category::kIdle ? e.idle_power : e.chip_power;
}

}  // namespace

CostRates resolve_cost(const scenario::Scenario& s, const cluster::Layout& layout,
                       scenario::ErrorList& errors) {
  const scenario::CostSpec& c = *s.cost;
  std::vector<std::string> names;
  const std::vector<std::string> generation = slice_generations(s, layout, names);
  check_generations(s, names, errors);
  const uint32_t first_spare = layout.slices() - layout.spare_slices();
  double per_hour = 0;  // the fleet's price per hour
  for (cluster::SliceId k = 0; k < layout.slices(); ++k) {
    const double share = k >= first_spare ? c.spare_price : 1.0;
    per_hour += static_cast<double>(layout.chips_per_slice()) * share *
                slice_price(c, layout.site_name(layout.site_of(k)), generation[k]);
  }
  return CostRates{c.currency, per_hour / 3600.0, layout.chips(), c.energy, c.wan_price_per_gb};
}

output::CostResult price_run(const CostRates& rates, const RunUsage& usage) {
  const auto& chip_seconds = usage.chip_seconds;
  output::CostResult out;
  out.currency = rates.currency;
  const double rental_per_chip_second = rates.fleet_per_second / static_cast<double>(rates.chips);
  for (size_t i = 0; i < policy::kCategoryCount; ++i) {
    const auto c = static_cast<policy::Category>(i);
    const double rental = chip_seconds[i] * rental_per_chip_second;
    const double energy =
        rates.energy ? chip_seconds[i] * watts(*rates.energy, c) / 3.6e6 * rates.energy->kwh : 0.0;
    out.rental += rental;
    out.energy += energy;
    out.by_category.emplace_back(std::string(policy::category_name(c)), rental + energy);
    out.total += rental + energy;
  }
  out.wan = usage.wan_bytes / 1e9 * rates.wan_price_per_gb;
  out.total += out.wan;
  if (usage.tokens > 0) out.per_billion_tokens = out.total / (usage.tokens / 1e9);
  if (usage.time_to_target_s && usage.end_s > 0) {
    // Rental is exact (the fleet is reserved throughout); energy and WAN are prorated by time.
    const double share = *usage.time_to_target_s / usage.end_s;
    out.to_target =
        rates.fleet_per_second * *usage.time_to_target_s + (out.energy + out.wan) * share;
  }
  return out;
}

}  // namespace goodsim::models
