// Test support for straggler models: every slowdown change a run makes, a
// bench that runs one model alone, a config parsed as the registry does, and
// a policy run the way the runner does with its slowdown history recorded.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/runner.h"
#include "models/straggler/straggler_model.h"
#include "sim/cluster/cluster_state.h"
#include "sim/scenario/reader.h"

namespace goodsim::models::straggler {

// Every slowdown change, as plain values.
struct Record {
  double t;
  cluster::SlowdownChangeKind kind;
  uint64_t id;
  cluster::SlowdownTarget target;
  cluster::SlowdownMode mode;
  double factor;
  bool operator==(const Record&) const = default;
};

struct Recorder : cluster::ClusterObserver {
  std::vector<Record> records;
  void on_cluster_change(const cluster::ClusterChange&) override {}
  void on_slowdown_change(const cluster::SlowdownChange& c) override {
    records.push_back({c.time.seconds_f(), c.kind, c.id.value(), c.target, c.mode, c.factor});
  }
};

// Runs one straggler model alone over `layout` until `horizon_s`.
struct Bench {
  const cluster::Layout& layout;
  cluster::Network network;
  scenario::JobSpec job{1, 1, core::Duration::seconds(1), std::nullopt};
  std::string name = "test";
  core::Simulation sim;
  cluster::ClusterState state;
  Recorder rec;
  RunContext ctx{sim, state, network, job, nullptr, name};

  Bench(const cluster::Layout& l, uint64_t seed) : layout(l), sim(seed), state(l) {
    state.add_observer(&rec);
  }
  void run(StragglerModel& m, double horizon_s) {
    m.start(ctx);
    sim.run_until(core::SimTime::zero() + core::Duration::from_seconds(horizon_s));
  }
};

// Parses a model config from JSON, as the registry does.
template <class Config>
Config parse(const nlohmann::json& j) {
  scenario::ObjectReader r(j, "stragglers.0");
  Config c = Config::from_json(r);
  r.finish();
  return c;
}

// Runs policy `index` the way the runner does (policy, failures, stragglers)
// and returns every slowdown change and the run's fingerprint.
inline std::pair<std::vector<Record>, uint64_t> run_with_observer(const PreparedScenario& p,
                                                                  size_t index, uint64_t seed) {
  core::Simulation sim(seed);
  cluster::ClusterState state(p.layout);
  cluster::Network network = p.network;
  RunContext ctx{sim, state, network, p.scenario.job, nullptr, p.policies[index].name};
  Recorder rec;
  state.add_observer(&rec);
  std::unique_ptr<policy::Policy> pol = p.policies[index].make();
  state.add_observer(pol.get());
  std::vector<std::unique_ptr<failure::FailureInjector>> failures;
  for (const auto& f : p.failures) failures.push_back(f.make(f.stream));
  std::vector<std::unique_ptr<StragglerModel>> stragglers;
  for (const auto& s : p.stragglers) stragglers.push_back(s.make(s.stream));
  pol->start(ctx);
  for (auto& f : failures) f->start(ctx);
  for (auto& s : stragglers) s->start(ctx);
  sim.run_until(core::SimTime::zero() + p.scenario.horizon);
  return {rec.records, sim.fingerprint()};
}

}  // namespace goodsim::models::straggler
