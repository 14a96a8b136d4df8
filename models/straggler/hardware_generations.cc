#include "models/straggler/hardware_generations.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sim/scenario/error.h"

namespace goodsim::models::straggler {
namespace {

using Config = HardwareGenerationsConfig;

HardwareGeneration read_generation(scenario::ObjectReader& g, size_t index) {
  HardwareGeneration gen;
  gen.name = g.string("name", fmt::format("generations.{}", index), "label in logs");
  gen.site = g.string("site", "", "all slices of this site (by name)");
  const auto first = g.optional_count("first_slice", "first slice of a range", 0, UINT32_MAX);
  const auto count = g.optional_count("slices", "number of slices in the range", 1, UINT32_MAX);
  gen.factor = g.unit("x").number("factor", "step-time multiplier of these slices, >= 1", 1.0);
  if (g.describing()) return gen;
  if (gen.site.empty() != (first.has_value() || count.has_value())) {
    g.fail("", "give either \"site\" or a range \"first_slice\" + \"slices\"");
  }
  if (first.has_value() != count.has_value()) {
    g.fail(first ? "slices" : "first_slice", "a slice range needs both \"first_slice\" and \"slices\"");
  }
  gen.first_slice = static_cast<uint32_t>(first.value_or(0));
  gen.slices = static_cast<uint32_t>(count.value_or(0));
  return gen;
}

std::string unknown_site(const std::string& name, const cluster::Layout& layout) {
  std::vector<std::string> names;
  for (cluster::SiteId s = 0; s < layout.sites(); ++s) names.push_back(layout.site_name(s));
  std::string msg = fmt::format("unknown site \"{}\"; ", name);
  if (auto best = scenario::closest_match(name, names)) return msg + "did you mean \"" + *best + "\"?";
  return msg + fmt::format("sites are \"{}\"", fmt::join(names, "\", \""));
}

}  // namespace

Config Config::from_json(scenario::ObjectReader& r) {
  Config c;
  c.path = r.path();
  std::vector<scenario::ObjectReader> list =
      r.object_list("generations", "slice sets and their step-time factors");
  for (size_t i = 0; i < list.size(); ++i) c.generations.push_back(read_generation(list[i], i));
  return c;
}

Config Config::from_json(scenario::ObjectReader& r, const ParseContext& ctx) {
  Config c = from_json(r);
  if (ctx.layout == nullptr || r.describing()) return c;
  const auto resolved = c.resolve(*ctx.layout);
  if (const Problem* p = std::get_if<Problem>(&resolved)) r.fail(p->key, p->message);
  return c;
}

std::variant<std::vector<Config::SliceRange>, Config::Problem> Config::resolve(
    const cluster::Layout& layout) const {
  std::vector<SliceRange> ranges;
  for (size_t i = 0; i < generations.size(); ++i) {
    const HardwareGeneration& g = generations[i];
    const std::string key = fmt::format("generations.{}", i);
    if (g.site.empty()) {
      if (uint64_t{g.first_slice} + g.slices > layout.slices()) {
        return Problem{key + ".slices", fmt::format("slices {}..{} are beyond the cluster's {} slices",
                                                    g.first_slice, uint64_t{g.first_slice} + g.slices - 1,
                                                    layout.slices())};
      }
      ranges.push_back({g.first_slice, g.slices});
      continue;
    }
    cluster::SiteId s = 0;
    while (s < layout.sites() && layout.site_name(s) != g.site) ++s;
    if (s == layout.sites()) return Problem{key + ".site", unknown_site(g.site, layout)};
    ranges.push_back({layout.first_slice_of(s), layout.slices_of(s)});
  }
  std::vector<size_t> order(ranges.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return ranges[a].first < ranges[b].first; });
  for (size_t k = 1; k < order.size(); ++k) {
    const SliceRange& prev = ranges[order[k - 1]];
    if (prev.first + prev.count > ranges[order[k]].first) {
      return Problem{fmt::format("generations.{}", std::max(order[k - 1], order[k])),
                     fmt::format("overlaps generations.{}: a slice belongs to one generation",
                                 std::min(order[k - 1], order[k]))};
    }
  }
  return ranges;
}

void HardwareGenerations::start(RunContext& ctx) {
  const auto resolved = config_.resolve(ctx.layout());
  if (const auto* p = std::get_if<Config::Problem>(&resolved)) {
    throw scenario::ScenarioError("", scenario::join_path(config_.path, p->key), p->message);
  }
  const auto& ranges = std::get<std::vector<Config::SliceRange>>(resolved);
  for (size_t i = 0; i < ranges.size(); ++i) {
    const HardwareGeneration& g = config_.generations[i];
    if (g.factor == 1.0) continue;
    for (uint32_t s = ranges[i].first; s < ranges[i].first + ranges[i].count; ++s) {
      ctx.cluster.add_slowdown(cluster::SlowdownTarget::slice(s), g.factor,
                               cluster::SlowdownMode::kScale, ctx.sim.now());
    }
    ctx.log("hardware_generation", {{"name", g.name},
                                    {"first_slice", ranges[i].first},
                                    {"slices", ranges[i].count},
                                    {"factor", g.factor}});
  }
}


// One slowdown per generation, applied at start.
ResourceUse HardwareGenerationsConfig::expected_use(const cluster::Layout& /*layout*/,
                                                    core::Duration /*horizon*/) const {
  return {static_cast<double>(generations.size()), 0};
}

}  // namespace goodsim::models::straggler
