// Straggler models: rates, durations, fractions and factors against their
// laws; the job slowdown drawn once; the diurnal swing at known times;
// common random numbers across policies; invalid parameters.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <vector>

#include "models/straggler/diurnal.h"
#include "models/straggler/hardware_generations.h"
#include "models/straggler/job_slowdown.h"
#include "models/straggler/persistent_stragglers.h"
#include "models/straggler/transient_stragglers.h"
#include "sim/scenario/error.h"
#include "tests/support/scenarios.h"
#include "tests/support/straggler_bench.h"

namespace goodsim::models::straggler {
namespace {

using cluster::SlowdownChangeKind;
using nlohmann::json;

// ---- transient_stragglers ---------------------------------------------------

TEST_CASE("transient episodes: rate, duration and factor match their laws",
          "[straggler][stat]") {
  // Per chip an alternating renewal process: Exp(mtbe) at nominal speed, then
  // an episode. Episode starts up to T are cycle ends up to T + E[D] (approx),
  // and for cycle X = Exp(mtbe) + D with D lognormal(mean 30 s, cv 1):
  //   E[N] = T'/mu + E[X^2]/(2 mu^2) - 1,  Var[N] = T' Var[X] / mu^3.
  const uint32_t chips = 2000;
  const double mtbe = 1000, dmean = 30, dsd = 30, horizon = 60000;
  const cluster::Layout layout(1, 1, {{"a", chips}});
  const auto config = parse<TransientStragglersConfig>(
      {{"mtbe", "1000s"},
       {"duration", {{"dist", "lognormal"}, {"mean", "30s"}, {"cv", 1}}},
       {"slowdown", {{"dist", "exponential"}, {"mean", 0.2}}}});
  for (uint64_t seed : {1, 2}) {
    Bench b(layout, seed);
    TransientStragglers model(config, "stragglers.t");
    b.run(model, horizon);
    const double mu = mtbe + dmean, var = mtbe * mtbe + dsd * dsd;
    const double ex2 = var + mu * mu, t = horizon + dmean;
    const double expected = chips * (t / mu + ex2 / (2 * mu * mu) - 1);
    const double sd = std::sqrt(chips * t * var / (mu * mu * mu));
    INFO("seed " << seed << ": " << model.episodes() << " episodes, expected " << expected
                 << " +- " << sd);
    CHECK(std::abs(static_cast<double>(model.episodes()) - expected) < 4 * sd);

    // Durations and factors of the episodes that started in the first half
    // (all of them ended long before the horizon), and no overlap on a chip.
    std::map<uint64_t, Record> open;
    std::vector<bool> busy(chips, false);
    double dsum = 0, fsum = 0;
    uint64_t n = 0, added = 0;
    for (const Record& r : b.rec.records) {
      REQUIRE(r.target.scope == cluster::SlowdownScope::kChip);
      REQUIRE(r.mode == cluster::SlowdownMode::kSlowest);
      if (r.kind == SlowdownChangeKind::kAdded) {
        REQUIRE_FALSE(busy[r.target.id]);
        busy[r.target.id] = true;
        open[r.id] = r;
        ++added;
        continue;
      }
      REQUIRE(r.kind == SlowdownChangeKind::kRemoved);
      busy[r.target.id] = false;
      const Record start = open.at(r.id);
      open.erase(r.id);
      if (start.t > horizon / 2) continue;
      dsum += r.t - start.t;
      fsum += start.factor;
      ++n;
    }
    CHECK(added == model.episodes());
    for (const auto& [id, r] : open) REQUIRE(r.t > horizon / 2);
    const double dse = dsd / std::sqrt(n), fse = 0.2 / std::sqrt(n);
    INFO("mean duration " << dsum / n << " +- " << dse << ", mean factor " << fsum / n);
    CHECK(std::abs(dsum / n - dmean) < 4 * dse);
    CHECK(std::abs(fsum / n - 1.2) < 4 * fse);
  }
}

TEST_CASE("transient episodes on hosts slow whole hosts", "[straggler]") {
  const cluster::Layout layout(4, 2, {{"a", 10}});
  Bench b(layout, 3);
  TransientStragglers model(
      parse<TransientStragglersConfig>(
          {{"mtbe", "1h"}, {"duration", "5m"}, {"factor", 1.5}, {"domain", "host"}}),
      "stragglers.h");
  b.run(model, 86400);
  REQUIRE(model.episodes() > 50);
  for (const Record& r : b.rec.records) {
    CHECK(r.target.scope == cluster::SlowdownScope::kHost);
    CHECK(r.target.id < layout.hosts());
    CHECK(r.factor == 1.5);
  }
}

// ---- persistent_stragglers --------------------------------------------------

TEST_CASE("persistent stragglers: binomial fraction, uniform over chips", "[straggler][stat]") {
  const uint32_t chips = 100000;
  const double p = 0.03;
  const cluster::Layout layout(1, 1, {{"a", chips}});
  const auto config = parse<PersistentStragglersConfig>({{"fraction", p}});
  for (uint64_t seed : {1, 2, 3}) {
    Bench b(layout, seed);
    PersistentStragglers model(config, "stragglers.p");
    b.run(model, 10);
    const double sd = std::sqrt(chips * p * (1 - p));
    INFO("seed " << seed << ": " << model.slow_units() << " slow, expected " << chips * p
                 << " +- " << sd);
    CHECK(std::abs(static_cast<double>(model.slow_units()) - chips * p) < 4 * sd);
    CHECK(b.rec.records.size() == model.slow_units());
    // Ten blocks of chips, chi-square with 9 degrees of freedom (0.001: 27.9).
    std::vector<double> blocks(10, 0);
    for (const Record& r : b.rec.records) {
      CHECK(r.factor == Approx(1.05));  // default: BLOOM's one slow node costing 5%
      CHECK(r.t == 0);
      blocks[r.target.id / (chips / 10)] += 1;
    }
    const double mean = static_cast<double>(model.slow_units()) / 10;
    double chi2 = 0;
    for (double n : blocks) chi2 += (n - mean) * (n - mean) / mean;
    INFO("chi2 = " << chi2);
    CHECK(chi2 < 27.9);
  }
}

TEST_CASE("persistent stragglers: fractions 0 and 1, hosts, factor laws", "[straggler]") {
  const cluster::Layout layout(4, 2, {{"a", 3}});
  {
    Bench b(layout, 1);
    PersistentStragglers none(parse<PersistentStragglersConfig>({{"fraction", 0}}), "s");
    b.run(none, 1);
    CHECK(none.slow_units() == 0);
    CHECK(b.state.slowdown().max_slowdown(0, 3) == 1.0);
  }
  Bench b(layout, 1);
  PersistentStragglers all(
      parse<PersistentStragglersConfig>(
          {{"fraction", "100%"},
           {"domain", "host"},
           {"slowdown", {{"dist", "uniform"}, {"min", 0.1}, {"max", 0.3}}}}),
      "s");
  b.run(all, 1);
  CHECK(all.slow_units() == layout.hosts());
  for (const Record& r : b.rec.records) {
    CHECK(r.factor >= 1.1);
    CHECK(r.factor < 1.3);
  }
}

// ---- job_slowdown -----------------------------------------------------------

TEST_CASE("job slowdown: one fleet-wide draw, ByteDance's shares by default",
          "[straggler][stat]") {
  const cluster::Layout layout(4, 4, {{"a", 8}});
  const auto config = parse<JobSlowdownConfig>(json::object());
  const int runs = 4000;
  int over_10 = 0, over_27 = 0;
  for (int seed = 1; seed <= runs; ++seed) {
    Bench b(layout, static_cast<uint64_t>(seed));
    JobSlowdown model(config, "stragglers.job");
    b.run(model, 3600);
    REQUIRE(b.rec.records.size() == 1);
    const Record& r = b.rec.records[0];
    REQUIRE(r.target == cluster::SlowdownTarget::all());
    REQUIRE(r.mode == cluster::SlowdownMode::kScale);
    REQUIRE(r.factor == model.factor());
    REQUIRE(b.state.slowdown().max_slowdown(0, 8) == Approx(model.factor()));
    over_10 += model.factor() > 1.1 ? 1 : 0;
    over_27 += model.factor() > 1 / (1 - 0.213) ? 1 : 0;
  }
  // 42.5% of jobs > 10% slower; 10% of jobs waste >= 21.3% (factor >= 1.27).
  const double p10 = static_cast<double>(over_10) / runs, p27 = static_cast<double>(over_27) / runs;
  CHECK(std::abs(p10 - 0.425) < 4 * std::sqrt(0.425 * 0.575 / runs));
  CHECK(std::abs(p27 - 0.10) < 4 * std::sqrt(0.1 * 0.9 / runs));
}

// ---- hardware_generations ---------------------------------------------------

TEST_CASE("hardware generations slow their site or slice range", "[straggler]") {
  const cluster::Layout layout(2, 2, {{"new", 4}, {"old", 4}});
  const auto config = parse<HardwareGenerationsConfig>(
      {{"generations",
        {{{"name", "v4"}, {"site", "old"}, {"factor", 1.18}},
         {{"first_slice", 0}, {"slices", 2}, {"factor", 1.05}}}}});
  Bench b(layout, 1);
  HardwareGenerations model(config, "stragglers.hw");
  b.run(model, 1);
  const auto& sd = b.state.slowdown();
  CHECK(sd.slice_slowdown(0) == Approx(1.05));
  CHECK(sd.slice_slowdown(2) == 1.0);
  CHECK(sd.slice_slowdown(5) == Approx(1.18));
  CHECK(sd.max_slowdown(0, 4) == Approx(1.05));
  CHECK(sd.max_slowdown(0, 8) == Approx(1.18));
}

// ---- diurnal ----------------------------------------------------------------

TEST_CASE("diurnal swing at known times", "[straggler]") {
  const auto config = parse<DiurnalConfig>({{"amplitude", "2%"}, {"peak", "12h"}});
  const auto at = [](double hours) {
    return core::SimTime::zero() + core::Duration::from_seconds(hours * 3600);
  };
  CHECK(config.factor_at(at(12)) == Approx(1.02));
  CHECK(config.factor_at(at(36)) == Approx(1.02));
  CHECK(config.factor_at(at(0)) == Approx(1.0));
  CHECK(config.factor_at(at(6)) == Approx(1.01));
  // The step average over a whole period is the mean swing.
  CHECK(config.average(at(3), at(27)) == Approx(1.01));

  const cluster::Layout layout(4, 4, {{"a", 4}});
  Bench b(layout, 1);
  Diurnal model(config, "stragglers.d");
  b.run(model, 86400);
  // One add at t = 0, then one update every 15 minutes, each the exact average.
  REQUIRE(b.rec.records.size() == 97);
  CHECK(b.rec.records[0].kind == SlowdownChangeKind::kAdded);
  for (size_t k = 0; k < b.rec.records.size(); ++k) {
    const Record& r = b.rec.records[k];
    CHECK(r.t == Approx(900.0 * k));
    CHECK(r.target == cluster::SlowdownTarget::all());
    CHECK(r.factor == Approx(config.average(at(k * 0.25), at(k * 0.25 + 0.25))));
  }
  // Around noon the interval [11h45, 12h) averages just under the peak.
  CHECK(b.rec.records[47].factor == Approx(1.02).epsilon(1e-4));
  CHECK(b.state.slowdown().slice_slowdown(0) == Approx(b.rec.records.back().factor));
}

// ---- common random numbers --------------------------------------------------

json crn_doc() {
  json doc = testing::small_scenario("3d", "30d", "1h", "5m", 8, 4);
  doc["cluster"]["sites"] = {{{"name", "new"}}, {{"name", "old"}}};
  doc["cluster"]["links"] = {{{"from", "new"}, {"to", "old"}, {"bandwidth", "100Gbps"}}};
  doc["policies"].push_back({{"name", "dp-slow"}, {"type", "data_parallel"}, {"restart_time", "45m"}});
  doc["stragglers"] = {
      {{"type", "transient_stragglers"}, {"mtbe", "2d"}, {"duration", "20m"}, {"factor", 1.4}},
      {{"type", "persistent_stragglers"}, {"fraction", 0.05}},
      {{"type", "job_slowdown"}},
      {{"type", "hardware_generations"}, {"generations", {{{"site", "old"}, {"factor", 1.18}}}}},
      {{"type", "diurnal"}, {"amplitude", 0.02}}};
  return doc;
}

TEST_CASE("every policy of a run faces the same straggler history", "[straggler]") {
  const PreparedScenario p = testing::prepare_doc(crn_doc());
  REQUIRE(p.policies.size() == 2);
  const auto [fast, fast_fp] = run_with_observer(p, 0, 21);
  const auto [slow, slow_fp] = run_with_observer(p, 1, 21);
  CHECK(fast.size() > 300);
  CHECK(fast == slow);
  CHECK(fast_fp != slow_fp);  // the policies themselves did differ
  const auto [other, other_fp] = run_with_observer(p, 0, 22);
  CHECK(other != fast);
  // And the whole runner agrees: same seed, same summary.
  const auto a = run_scenario(p, 21, nullptr);
  const auto b = run_scenario(p, 21, nullptr);
  CHECK(a.policies[0].fingerprint == b.policies[0].fingerprint);
}

// ---- conformance ------------------------------------------------------------

TEST_CASE("straggler models: deterministic whole runs, zero rates do nothing, self-documenting",
          "[straggler][conformance]") {
  const std::vector<std::pair<json, std::vector<std::string>>> models = {
      {{{"type", "transient_stragglers"}, {"mtbe", "1d"}, {"factor", 1.5},
        {"duration", {{"dist", "exponential"}, {"mean", "30m"}}}},
       {"mtbe", "duration", "factor", "slowdown", "domain"}},
      {{{"type", "persistent_stragglers"}, {"fraction", 0.2}, {"slowdown", 0.3}},
       {"fraction", "factor", "slowdown", "domain"}},
      {{{"type", "job_slowdown"}}, {"factor", "slowdown"}},
      {{{"type", "hardware_generations"}, {"generations", {{{"site", "old"}, {"factor", 1.18}}}}},
       {"generations", "generations.*.site", "generations.*.first_slice", "generations.*.slices",
        "generations.*.factor", "generations.*.name"}},
      {{{"type", "diurnal"}}, {"amplitude", "period", "resolution", "peak"}},
  };
  const Registry registry = builtin_registry();
  for (const auto& [model, keys] : models) {
    INFO(model.dump());
    json doc = crn_doc();
    doc["stragglers"] = json::array({model});
    const PreparedScenario p = testing::prepare_doc(doc);
    const auto a = run_scenario(p, 5, nullptr);  // also checks the accounting invariant
    const auto b = run_scenario(p, 5, nullptr);
    CHECK(a.policies[0].fingerprint == b.policies[0].fingerprint);
    CHECK(a.policies[1].fingerprint == b.policies[1].fingerprint);
    CHECK(run_with_observer(p, 0, 5).first == run_with_observer(p, 1, 5).first);

    const ModelInfo* m = registry.find(ModelKind::kStraggler, model["type"].get<std::string>());
    REQUIRE(m != nullptr);
    scenario::ObjectReader r = scenario::ObjectReader::describe();
    CHECK_NOTHROW(m->parse_straggler(r, ParseContext{}));
    for (const std::string& key : keys) {
      INFO(key);
      CHECK(std::any_of(r.docs().begin(), r.docs().end(),
                        [&](const scenario::ParamDoc& d) { return d.key == key; }));
    }
  }
  // Zero rates: no slowdown at all.
  for (const json& zero : {json{{"type", "persistent_stragglers"}, {"fraction", 0}},
                           json{{"type", "job_slowdown"}, {"factor", 1}},
                           json{{"type", "diurnal"}, {"amplitude", 0}}}) {
    INFO(zero.dump());
    json doc = crn_doc();
    doc["stragglers"] = json::array({zero});
    const auto records = run_with_observer(testing::prepare_doc(doc), 0, 5).first;
    for (const Record& r : records) CHECK(r.factor == 1.0);
  }
}

// ---- invalid input ----------------------------------------------------------

std::string prepare_error(const json& doc) {
  try {
    testing::prepare_doc(doc);
  } catch (const scenario::ScenarioError& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST_CASE("invalid straggler parameters are rejected clearly", "[straggler]") {
  const auto with = [](json model) {
    json doc = crn_doc();
    doc["stragglers"] = json::array({model});
    return doc;
  };
  using Catch::Matchers::Contains;
  CHECK_THAT(prepare_error(with({{"type", "persistent_stragglers"}, {"fraction", 0.1}, {"factor", 0.9}})),
             Contains("stragglers.0.factor") && Contains(">= 1"));
  CHECK_THAT(prepare_error(with({{"type", "persistent_stragglers"}, {"fraction", 1.5}})),
             Contains("stragglers.0.fraction"));
  CHECK_THAT(prepare_error(with({{"type", "persistent_stragglers"}, {"fraction", 0.1}, {"factor", 1.2},
                                 {"slowdown", 0.2}})),
             Contains("not both"));
  CHECK_THAT(prepare_error(with({{"type", "job_slowdown"}, {"factor", {{"dist", "uniform"}}}})),
             Contains("\"slowdown\""));
  CHECK_THAT(prepare_error(with({{"type", "job_slowdown"},
                                 {"slowdown", {{"dist", "lognormal"}, {"median", 0.1}}}})),
             Contains("stragglers.0.slowdown") && Contains("missing one of \"sigma\""));
  CHECK_THAT(prepare_error(with({{"type", "transient_stragglers"}, {"mtbe", "1d"}, {"factor", 2},
                                 {"duration", "1m"}, {"domain", "learner"}, {"learners", 9}})),
             Contains("stragglers.0.learners") && Contains("9 learners do not fit the 8"));
  CHECK_THAT(prepare_error(with({{"type", "transient_stragglers"}, {"mtbe", "1d"}, {"factor", 2}})),
             Contains("duration"));
  CHECK_THAT(prepare_error(with({{"type", "transient_stragglers"}, {"mtbe", "1d"}, {"duration", "1h"}})),
             Contains("\"factor\""));
  CHECK_THAT(prepare_error(with({{"type", "hardware_generations"},
                                 {"generations", {{{"site", "olde"}, {"factor", 1.2}}}}})),
             Contains("stragglers.0.generations.0.site") && Contains("did you mean \"old\""));
  CHECK_THAT(prepare_error(with({{"type", "hardware_generations"},
                                 {"generations", {{{"first_slice", 6}, {"slices", 4}, {"factor", 1.2}}}}})),
             Contains("beyond the cluster's 8 slices"));
  CHECK_THAT(prepare_error(with({{"type", "hardware_generations"},
                                 {"generations", {{{"site", "old"}, {"factor", 1.2}},
                                                  {{"first_slice", 5}, {"slices", 1}, {"factor", 1.1}}}}})),
             Contains("generations.1") && Contains("overlaps generations.0"));
  CHECK_THAT(prepare_error(with({{"type", "diurnal"}, {"resolution", "2d"}})),
             Contains("must not exceed period"));
  CHECK_THAT(prepare_error(with({{"type", "diurnal"}, {"amplitud", 0.1}})),
             Contains("did you mean \"amplitude\""));
}

TEST_CASE("hardware generations check the cluster at run time too", "[straggler]") {
  // Without a ParseContext (a config built directly) the check happens at start().
  const cluster::Layout layout(2, 2, {{"a", 2}});
  auto config = parse<HardwareGenerationsConfig>({{"generations", {{{"site", "b"}, {"factor", 1.2}}}}});
  Bench b(layout, 1);
  HardwareGenerations model(config, "s");
  CHECK_THROWS_WITH(b.run(model, 1), Catch::Matchers::Contains("stragglers.0.generations.0.site") &&
                                         Catch::Matchers::Contains("unknown site \"b\""));
}

}  // namespace
}  // namespace goodsim::models::straggler
