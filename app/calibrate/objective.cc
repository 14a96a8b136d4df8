#include "app/calibrate/objective.h"

#include <fmt/format.h>

#include <cmath>
#include <functional>
#include <memory>

#include "app/sweep/stats.h"
#include "app/sweep/task_pool.h"
#include "models/runner.h"
#include "sim/scenario/error.h"
#include "sim/scenario/overrides.h"
#include "sim/scenario/scenario.h"

namespace goodsim::app::calibrate {
namespace {

// One observation at one point: its prepared scenario and its runs' values.
struct Case {
  std::unique_ptr<models::PreparedScenario> prepared;
  size_t policy = 0;
  std::vector<std::optional<double>> values;  // one per seed
};

size_t policy_index(const models::PreparedScenario& p, const Observation& o) {
  std::string names;
  for (size_t i = 0; i < p.policies.size(); ++i) {
    if (p.policies[i].name == o.policy) return i;
    names += (names.empty() ? "" : ", ") + p.policies[i].name;
  }
  throw scenario::ScenarioError(o.where, "policy",
                                fmt::format("unknown policy \"{}\"; the scenario has: {}",
                                            scenario::shorten(o.policy, 60), names));
}

// An error at or under a knob's path is the knob's; any other belongs to the
// observation's overrides or to the scenario itself.
[[noreturn]] void rethrow_for(const scenario::ScenarioError& e, const std::vector<Knob>& knobs,
                              const Observation& o) {
  for (const Knob& k : knobs) {
    for (const std::string& p : k.paths()) {
      if (e.path() == p || e.path().rfind(p + ".", 0) == 0) {
        throw scenario::ScenarioError("--fit " + k.path(), e.path(), e.message());
      }
    }
  }
  for (const std::string& set : o.sets) {
    const std::string path = set.substr(0, set.find('='));
    if (e.path() == path || e.path().rfind(path + ".", 0) == 0) {
      throw scenario::ScenarioError(o.where + " (" + set + ")", e.path(), e.message());
    }
  }
  throw e;
}

void apply_knobs(nlohmann::json& doc, const std::vector<Knob>& knobs,
                 const std::vector<double>& values) {
  for (size_t k = 0; k < knobs.size(); ++k) {
    for (const std::string& a : knobs[k].assignments(values[k])) scenario::apply_override(doc, a);
  }
}

}  // namespace

Objective::Objective(ScenarioSource base, std::vector<Knob> knobs,
                     std::vector<Observation> observations, size_t seeds, unsigned jobs,
                     SharedRuns* runs)
    : base_(std::move(base)),
      knobs_(std::move(knobs)),
      observations_(std::move(observations)),
      seeds_(seeds),
      jobs_(jobs),
      runs_(runs),
      registry_(models::builtin_registry()) {
  std::vector<double> lo, hi;
  for (const Knob& k : knobs_) {
    lo.push_back(k.lo());
    hi.push_back(k.hi());
  }
  for (size_t i = 0; i < observations_.size(); ++i) {
    for (const std::vector<double>* values : {&lo, &hi}) {
      const ScenarioSource src = source(i, *values);
      try {
        policy_index(models::prepare(src.doc, src.label, registry_), observations_[i]);
      } catch (const scenario::ScenarioError& e) {
        rethrow_for(e, knobs_, observations_[i]);
      }
    }
  }
}

ScenarioSource Objective::source(size_t observation, const std::vector<double>& values) const {
  ScenarioSource src = base_;
  const Observation& o = observations_[observation];
  try {
    for (const std::string& s : o.sets) scenario::apply_override(src.doc, s);
    apply_knobs(src.doc, knobs_, values);
  } catch (const scenario::ScenarioError& e) {
    rethrow_for(e, knobs_, o);
  }
  return src;
}

nlohmann::json Objective::calibrated_document(const std::vector<double>& values) const {
  nlohmann::json doc = base_.doc;
  apply_knobs(doc, knobs_, values);
  return doc;
}

std::vector<Simulated> Objective::evaluate(const std::vector<std::vector<double>>& points) {
  const size_t m = observations_.size();
  std::vector<Case> cases(points.size() * m);
  // Prepared here, in order: runs only read them.
  for (size_t p = 0; p < points.size(); ++p) {
    std::vector<double> values;
    for (size_t k = 0; k < knobs_.size(); ++k) values.push_back(knobs_[k].value(points[p][k]));
    for (size_t i = 0; i < m; ++i) {
      const ScenarioSource src = source(i, values);
      Case& c = cases[p * m + i];
      c.prepared = std::make_unique<models::PreparedScenario>(
          models::prepare(src.doc, src.label, registry_));
      c.policy = policy_index(*c.prepared, observations_[i]);
      c.values.resize(seeds_);
    }
  }
  std::vector<std::function<void()>> tasks;
  for (size_t c = 0; c < cases.size(); ++c) {
    for (size_t s = 0; s < seeds_; ++s) {
      tasks.emplace_back([this, &cases, c, s, m] {
        Case& cs = cases[c];
        const models::PreparedScenario& pr = *cs.prepared;
        const uint64_t seed = scenario::replication_seed(pr.scenario.seed, s);
        const output::PolicyResult r = models::run_policy(pr, cs.policy, seed, nullptr);
        cs.values[s] =
            metric_value(r, observations_[c % m].metric, pr.scenario.horizon.seconds_f());
      });
    }
  }
  if (runs_) {
    runs_->run(std::move(tasks));
  } else {
    SharedRuns(jobs_).run(std::move(tasks));
  }
  simulations_ += cases.size() * seeds_;
  std::vector<Simulated> out(points.size());
  for (size_t c = 0; c < cases.size(); ++c) {
    const Observation& o = observations_[c % m];
    const std::vector<double> v = sweep::present(cases[c].values);
    if (v.size() != seeds_) {
      throw scenario::ScenarioError(
          o.where, "metric",
          fmt::format("the runs of policy \"{}\" have no {}", o.policy, o.metric));
    }
    const sweep::Estimate e = sweep::estimate(v);
    out[c / m].mean.push_back(e.mean);
    out[c / m].se.push_back(seeds_ > 1 ? e.sd / std::sqrt(static_cast<double>(seeds_)) : 0.0);
  }
  return out;
}

}  // namespace goodsim::app::calibrate
