#include "tests/support/random_scenario.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>

#include "sim/core/distributions.h"

namespace goodsim::testing {

using nlohmann::json;

struct RandomScenario::Shape {
  uint64_t chips_per_host = 1;
  uint64_t hosts_per_slice = 1;
  uint64_t slices = 1;
  std::vector<std::string> sites;
  double horizon_s = 0;

  uint64_t chips() const { return chips_per_host * hosts_per_slice * slices; }
  uint64_t units(const std::string& domain) const {
    if (domain == "chip") return chips();
    if (domain == "host") return chips() / chips_per_host;
    if (domain == "slice") return slices;
    return sites.size();
  }
};

RandomScenario::RandomScenario(uint64_t seed, std::filesystem::path dir)
    : seed_(seed), dir_(std::move(dir)), rng_(seed) {}

double RandomScenario::uniform(double a, double b) { return core::uniform(rng_, a, b); }

std::string RandomScenario::seconds(double s) { return fmt::format("{:.6g}s", s); }

std::string RandomScenario::around(double typical) {
  return seconds(typical * std::exp(uniform(-3.4, 3.4)));
}

json RandomScenario::make(uint64_t index) {
  rng_ = core::Rng::for_stream(seed_, fmt::format("scenario-{}", index));
  Shape shape;
  json doc = {{"name", fmt::format("random-{}", index)}, {"seed", 1 + below(1000)}};
  doc["cluster"] = cluster(shape);
  shape.horizon_s = uniform(600, 5 * 86400.0);
  doc["horizon"] = seconds(shape.horizon_s);
  doc["job"] = {{"params", std::exp(uniform(std::log(1e8), std::log(1e11)))},
                {"tokens_per_step", std::exp(uniform(std::log(1e5), std::log(1e7)))},
                {"step_time", seconds(uniform(0.5, 60))}};
  doc["failures"] = json::array();
  for (uint64_t i = below(4); i > 0; --i) doc["failures"].push_back(failure(shape, index));
  doc["stragglers"] = json::array();
  for (uint64_t i = below(3); i > 0; --i) doc["stragglers"].push_back(straggler(shape));
  doc["policies"] = json::array();
  for (size_t i = 0, n = 1 + below(3); i < n; ++i) doc["policies"].push_back(policy(shape, i));
  if (chance(0.2)) doc["chaos"] = json::array({chaos(shape)});
  if (chance(0.03)) doc["chaos"] = deep_chaos(shape);
  if (chance(0.5)) doc["loss"] = loss();
  if (chance(0.05)) doc["cluster"]["chips"] = -1;  // invalid on purpose: must exit 2
  if (chance(0.05)) doc["horizon"] = "0s";
  return doc;
}

json RandomScenario::cluster(Shape& shape) {
  shape.chips_per_host = uint64_t{1} << below(4);
  shape.hosts_per_slice = uint64_t{1} << below(4);
  const uint64_t sites = 1 + below(3);
  shape.slices = sites * (1 + below(8));
  json c = {{"chips", shape.chips()},
            {"chips_per_host", shape.chips_per_host},
            {"hosts_per_slice", shape.hosts_per_slice}};
  c["sites"] = json::array();
  c["links"] = json::array();
  for (uint64_t s = 0; s < sites; ++s) {
    shape.sites.push_back(fmt::format("s{}", s));
    c["sites"].push_back({{"name", shape.sites.back()}});
    if (s > 0) {
      c["links"].push_back({{"from", shape.sites[s - 1]}, {"to", shape.sites[s]},
                            {"bandwidth", fmt::format("{}Gbps", 1 + below(400))},
                            {"latency", fmt::format("{}ms", below(100))}});
    }
  }
  if (chance(0.3)) c["spare_slices"] = below(std::min<uint64_t>(3, shape.slices));
  return c;
}

json RandomScenario::failure(const Shape& shape, uint64_t index) {
  const double h = shape.horizon_s;
  // Rates give up to ~100 expected failures per run: enough to exercise every path.
  switch (below(5)) {
    case 0: {
      json f = {{"type", "exponential_failures"},
                {"mtbf", seconds(shape.chips() * h / uniform(0.5, 100))},
                {"repair_time", around(1800)}};
      if (chance(0.3)) {
        f["lemon_fraction"] = uniform(0, 0.2);
        f["lemon_multiplier"] = uniform(1, 5);
      }
      return f;
    }
    case 1:
      return {{"type", "weibull_failures"}, {"shape", uniform(0.5, 3)},
              {"scale", seconds(shape.chips() * h / uniform(0.5, 100))},
              {"initial_age", chance(0.5) ? "new" : "stationary"}, {"repair_time", around(1800)}};
    case 2: {
      const std::string domain = std::vector<std::string>{"host", "slice", "site"}[below(3)];
      return {{"type", "domain_failures"}, {"domain", domain},
              {"mtbf", seconds(shape.units(domain) * h / uniform(0.5, 30))},
              {"repair_time", around(1800)}};
    }
    case 3: {
      const std::string domain = std::vector<std::string>{"host", "slice"}[below(2)];
      return {{"type", "planned_maintenance"}, {"domain", domain}, {"interval", around(h / 4)},
              {"units_per_window", 1 + below(std::min<uint64_t>(2, shape.units(domain)))},
              {"order", chance(0.5) ? "rolling" : "random"}, {"duration", around(600)}};
    }
    default:
      return {{"type", "trace_replay"}, {"file", trace_file(shape, index)}};
  }
}

std::string RandomScenario::trace_file(const Shape& shape, uint64_t index) {
  const std::filesystem::path path = dir_ / fmt::format("trace-{}-{}.csv", index, below(1 << 20));
  std::ofstream out(path);
  out << "time,duration,target,cause\n";
  const uint64_t mode = below(10);
  if (mode == 0) {  // one chip failed again and again before it returns: depth past 255
    const uint64_t chip = below(shape.chips());
    const double start = uniform(0, shape.horizon_s / 2);
    for (uint64_t i = 0, n = 256 + below(200); i < n; ++i) {
      out << seconds(start + static_cast<double>(i)) << ',' << around(3600) << ",chip:" << chip
          << ",deep\n";
    }
    return path.string();
  }
  if (mode == 1) {  // every outage its own cause
    for (uint64_t i = 0, n = 1000 + below(4000); i < n; ++i) {
      out << seconds(uniform(0, shape.horizon_s)) << ',' << around(60) << ",chip:"
          << below(shape.chips()) << ",cause-" << i << '\n';
    }
    return path.string();
  }
  const std::vector<std::string> kinds = {"chip", "host", "slice", "site"};
  for (uint64_t i = below(40); i > 0; --i) {
    const std::string& kind = kinds[below(kinds.size())];
    out << seconds(uniform(0, shape.horizon_s)) << ',' << around(900) << ',' << kind << ':'
        << below(shape.units(kind)) << ",cause " << below(5) << '\n';
  }
  return path.string();
}

json RandomScenario::straggler(const Shape& shape) {
  switch (below(5)) {
    case 0: {
      const std::string domain = std::vector<std::string>{"chip", "host", "slice"}[below(3)];
      return {{"type", "transient_stragglers"}, {"domain", domain},
              {"mtbe", seconds(shape.units(domain) * shape.horizon_s / uniform(0.5, 50))},
              {"duration", {{"dist", "exponential"}, {"mean", around(120)}}},
              {"slowdown", {{"dist", "exponential"}, {"mean", uniform(0.01, 1)}}}};
    }
    case 1:
      return {{"type", "persistent_stragglers"},
              {"domain", std::vector<std::string>{"chip", "host", "slice"}[below(3)]},
              {"fraction", uniform(0, 0.3)}, {"factor", uniform(1, 2)}};
    case 2:
      return {{"type", "job_slowdown"},
              {"slowdown", {{"dist", "lognormal"}, {"median", uniform(0.01, 0.2)},
                            {"sigma", uniform(0.1, 1.5)}}}};
    case 3:
      return {{"type", "hardware_generations"},
              {"generations", {{{"name", "older"}, {"first_slice", 0},
                                {"slices", 1 + below(shape.slices)}, {"factor", uniform(1, 2)}}}}};
    default:
      return {{"type", "diurnal"}, {"amplitude", uniform(0, 0.2)}, {"period", "24h"},
              {"resolution", around(900)}, {"peak", seconds(uniform(0, 86400))}};
  }
}

json RandomScenario::policy(const Shape& shape, size_t i) {
  const std::string name = fmt::format("p{}", i);
  const uint64_t max_learners = std::max<uint64_t>(1, std::min<uint64_t>(shape.slices, 8));
  switch (below(4)) {
    case 0: {
      json p = {{"name", name}, {"type", "data_parallel"}, {"restart_time", around(300)},
                {"swap_time", around(120)}};
      if (chance(0.7)) {
        p["checkpoint"] = {{"interval", chance(0.3) ? json("daly") : json(around(1800))},
                           {"write_time", around(30)}};
      }
      return p;
    }
    case 1:
      return {{"name", name}, {"type", "elastic_data_parallel"},
              {"downscale_time", around(30)}, {"upscale_time", around(30)}};
    case 2: {
      const uint64_t inner = 10 + below(500);
      const uint64_t fragments = 1 + below(4);
      return {{"name", name}, {"type", "diloco"}, {"learners", 1 + below(max_learners)},
              {"inner_steps", inner}, {"fragments", fragments},
              {"overlap_steps", below(std::max<uint64_t>(1, inner / fragments / 2))},
              {"drop_failed", chance(0.5)}};
    }
    default: {
      const uint64_t learners = 1 + below(max_learners);
      return {{"name", name}, {"type", "decoupled_diloco"}, {"learners", learners},
              {"quorum", 1 + below(learners)}, {"fragments", 1 + below(3)},
              {"inner_steps", 10 + below(300)}, {"grace", chance(0.5)},
              {"rejoin_overhead", around(60)}};
    }
  }
}

json RandomScenario::chaos(const Shape& shape) {
  return {{"at", seconds(uniform(0, shape.horizon_s))}, {"action", "fail"},
          {"target", {{"site", shape.sites[below(shape.sites.size())]}}},
          {"duration", around(1800)}, {"cause", "chaos"}};
}

json RandomScenario::deep_chaos(const Shape& shape) {
  // A chip failed 256 or more times over, each outage outlasting the next one's start.
  const uint64_t chip = below(shape.chips());
  const double start = uniform(0, shape.horizon_s / 2);
  json timeline = json::array();
  for (uint64_t i = 0, n = 256 + below(100); i < n; ++i) {
    timeline.push_back({{"at", seconds(start + static_cast<double>(i))}, {"action", "fail"},
                        {"target", {{"chip", chip}}}, {"duration", around(3600)},
                        {"cause", fmt::format("chaos-{}", i)}});
  }
  return timeline;
}

json RandomScenario::loss() {
  if (chance(0.5)) return {{"type", "scaling_law"}};
  return {{"type", "nqm"}, {"dims", 8 + below(56)}};
}

}  // namespace goodsim::testing
