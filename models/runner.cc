#include "models/runner.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <memory>
#include <optional>
#include <set>
#include <system_error>
#include <thread>
#include <vector>

#include "models/loss_tracker.h"
#include "models/slice_down_tracker.h"
#include "models/policy/layer_step_model.h"
#include "models/resource_estimate.h"
#include "sim/cluster/cluster_state.h"
#include "sim/core/simulation.h"
#include "sim/core/version.h"
#include "sim/scenario/error.h"
#include "sim/scenario/reader.h"

namespace goodsim::models {
namespace {

using scenario::ObjectReader;
using scenario::ScenarioError;

// The validated head of a model entry: its registry entry and unique name.
struct EntryHead {
  const ModelInfo* info;
  std::string name;
};

// Reads "type" (checked against the registry) and "name" (unique among
// `names`; the type plus `index_suffix` when absent) of a model entry.
EntryHead read_head(ObjectReader& r, ModelKind kind, const Registry& registry,
                    const std::string& index_suffix, std::set<std::string>& names) {
  const std::string type = r.string("type", "model type: see goodsim list-models");
  const ModelInfo* info = registry.find(kind, type);
  if (info == nullptr) {
    r.fail("type", "unknown " + std::string(kind_name(kind)) + " model \"" + type + "\"; " +
                       scenario::key_hint(type, registry.types(kind)));
  }
  const std::string name = r.string("name", type + index_suffix, "name of this entry in outputs");
  if (!names.insert(name).second) {
    r.fail("name", "duplicate " + std::string(kind_name(kind)) + " name \"" + name + "\"");
  }
  return {info, name};
}

// Validates the entries of a list of stream-drawing models (failures,
// stragglers); each gets the RNG stream "<list key>.<name>".
template <class Prepared, class Parse>
std::vector<Prepared> prepare_streams(const scenario::Scenario& s,
                                      const std::vector<scenario::ModelEntry>& entries,
                                      ModelKind kind, const Registry& registry,
                                      const ParseContext& ctx, Parse parse,
                                      scenario::ErrorList& errors) {
  std::vector<Prepared> out;
  std::set<std::string> names;
  for (const scenario::ModelEntry& e : entries) {
    errors.attempt(e.path, [&] {
      ObjectReader r(e.json, e.path, s.file, &errors);
      r.log_defaults_to(s.defaults);
      const std::string index = fmt::format(".{}", e.path.substr(e.path.rfind('.') + 1));
      const EntryHead head = read_head(r, kind, registry, index, names);
      auto make = parse(*head.info, r, ctx);
      r.finish();
      out.push_back({std::string(scenario_key(kind)) + "." + head.name, std::move(make)});
    });
  }
  return out;
}

std::vector<PreparedPolicy> prepare_policies(const scenario::Scenario& s, const ParseContext& ctx,
                                             const Registry& registry,
                                             scenario::ErrorList& errors) {
  std::vector<PreparedPolicy> out;
  std::set<std::string> names;
  for (const scenario::ModelEntry& e : s.policies) {
    errors.attempt(e.path, [&] {
      ObjectReader r(e.json, e.path, s.file, &errors);
      r.log_defaults_to(s.defaults);
      const EntryHead head = read_head(r, ModelKind::kPolicy, registry, "", names);
      PolicyMaker make = head.info->parse_policy(r, ctx);
      r.finish();
      out.push_back({head.name, head.info->type, std::move(make)});
    });
  }
  return out;
}

// Learners of a policy as it starts. Learner counts may depend on the
// cluster, so the policy is started on a scratch run (nothing is simulated).
uint32_t learners_at_start(const PreparedPolicy& p, const scenario::Scenario& s,
                           const cluster::Layout& layout, const cluster::Network& network) {
  core::Simulation sim(s.seed);
  cluster::ClusterState cluster(layout);
  cluster::Network scratch = network;
  RunContext ctx{sim, cluster, scratch, s.job, nullptr, p.name};
  const std::unique_ptr<policy::Policy> policy = p.make();
  cluster.add_observer(policy.get());
  policy->start(ctx);
  return policy->learner_count();
}

// Learner targets of the chaos timeline must exist in every policy; checked
// here so that `goodsim validate` reports them. ChaosScript checks again when
// it starts in a real run.
void check_chaos_learners(const failure::ChaosTimeline& chaos,
                          const std::vector<PreparedPolicy>& policies,
                          const scenario::Scenario& s, const cluster::Layout& layout,
                          const cluster::Network& network) {
  const bool any = std::any_of(chaos.events.begin(), chaos.events.end(), [](const auto& e) {
    return e.target.kind == failure::ChaosTargetKind::kLearner;
  });
  if (!any) return;
  for (const PreparedPolicy& p : policies) {
    failure::check_learner_targets(chaos, learners_at_start(p, s, layout, network), p.name);
  }
}

// Counts outages begun, whatever their source, per root cause.
class FailureCounter : public cluster::ClusterObserver {
 public:
  void on_cluster_change(const cluster::ClusterChange& c) override {
    if (!c.failed) return;
    if (per_cause_.size() <= c.cause) per_cause_.resize(c.cause + 1, 0);
    ++per_cause_[c.cause];
    ++count_;
  }
  uint64_t count() const { return count_; }
  std::vector<std::pair<std::string, uint64_t>> by_cause(const cluster::ClusterState& s) const {
    std::vector<std::pair<std::string, uint64_t>> out;
    for (cluster::CauseId c = 0; c < s.cause_count(); ++c) {
      const uint64_t n = c < per_cause_.size() ? per_cause_[c] : 0;
      if (c != cluster::kUnspecifiedCause || n > 0) out.emplace_back(s.cause_name(c), n);
    }
    return out;
  }

 private:
  uint64_t count_ = 0;
  std::vector<uint64_t> per_cause_;
};

output::TimeseriesRow sample_row(const policy::Policy& p, const cluster::ClusterState& cluster,
                                 core::SimTime now) {
  const policy::Progress prog = p.progress(now);
  output::TimeseriesRow row;
  row.time_s = now.seconds_f();
  row.healthy_chips = cluster.layout().chips() - cluster.down_chips();
  row.active_chips = prog.active_chips;
  row.training = p.outages().training();
  row.steps = prog.steps;
  row.tokens = prog.tokens;
  row.downtime_s = p.outages().downtime_until(now).seconds_f();
  policy::ChipTimeLedger ledger = p.ledger();
  ledger.advance(now);
  const double total = static_cast<double>(ledger.chips()) * now.seconds_f();
  // The ledger keeps productive <= chips x time exactly; only the two
  // conversions to double can round the ratio past 1.
  row.goodput =
      total > 0 ? std::min(1.0, ledger.chip_seconds(policy::Category::kProductive) / total) : 0.0;
  return row;
}

// ETTR: productive chip-time over the job slices' chip-time (docs/metrics.md). Spares are
// not the job's: every policy computes on at most slices - spare_slices slices at once.
double ettr(double productive, const cluster::Layout& layout, core::Duration span) {
  const uint64_t job_chips =
      uint64_t{layout.slices() - layout.spare_slices()} * layout.chips_per_slice();
  const double job_seconds = static_cast<double>(job_chips) * span.seconds_f();
  return job_seconds > 0 ? std::min(1.0, productive / job_seconds) : 0.0;
}

void fill_result(output::PolicyResult& r, const policy::Policy& p, const core::Simulation& sim,
                 const cluster::Layout& layout, core::Duration horizon) {
  const policy::ChipTimeLedger& ledger = p.ledger();
  const double chip_seconds = static_cast<double>(ledger.chips()) * horizon.seconds_f();
  const double productive = ledger.chip_seconds(policy::Category::kProductive);
  r.goodput = std::min(1.0, productive / chip_seconds);
  r.ettr = ettr(productive, layout, horizon);
  r.downtime_s = p.outages().downtime().seconds_f();
  r.uptime = 1.0 - r.downtime_s / horizon.seconds_f();
  r.outages = p.outages().outages();
  r.longest_outage_s = p.outages().longest().seconds_f();
  r.checkpoint_pauses = p.outages().checkpoint_pauses();
  r.checkpoint_pause_s = p.outages().checkpoint_time().seconds_f();
  const policy::Progress prog = p.progress(sim.now());
  r.steps = prog.steps;
  r.tokens = prog.tokens;
  for (size_t i = 1; i < policy::kCategoryCount; ++i) {
    const auto c = static_cast<policy::Category>(i);
    r.badput.emplace_back(std::string(policy::category_name(c)), ledger.chip_seconds(c));
  }
  if (auto t = p.target_reached_at()) r.time_to_target_s = t->seconds_f();
  r.fingerprint = sim.fingerprint();
  r.events = sim.events_executed();
}

}  // namespace

PreparedScenario prepare(const nlohmann::json& doc, const std::string& file,
                         const Registry& registry) {
  // Every error that can be found in one pass is reported (up to kMaxErrors),
  // except that nothing past the cluster is checked when the cluster is bad:
  // the layout every model is checked against would be wrong.
  scenario::ErrorList errors;
  scenario::Scenario s = scenario::parse_scenario(doc, file, errors);
  const auto cluster = doc.is_object() ? doc.find("cluster") : doc.end();
  const bool cluster_given = cluster != doc.end() && cluster->is_object();
  if (!cluster_given || errors.any_under("cluster")) errors.throw_if_any();
  cluster::Layout layout = scenario::make_layout(s.cluster);
  cluster::Network network = scenario::make_network(s.cluster);
  failure::ChaosTimeline chaos = failure::parse_chaos(s, layout, errors);
  const ParseContext ctx{&layout, scenario_base_dir(file), &s.job};
  auto failures = prepare_streams<PreparedFailure>(
      s, s.failures, ModelKind::kFailure, registry, ctx,
      [](const ModelInfo& m, ObjectReader& r, const ParseContext& c) { return m.parse_failure(r, c); },
      errors);
  auto stragglers = prepare_streams<PreparedStraggler>(
      s, s.stragglers, ModelKind::kStraggler, registry, ctx,
      [](const ModelInfo& m, ObjectReader& r, const ParseContext& c) {
        return m.parse_straggler(r, c);
      },
      errors);
  std::vector<PreparedPolicy> policies = prepare_policies(s, ctx, registry, errors);
  if (!errors.any_under("policies")) {
    errors.attempt("chaos", [&] { check_chaos_learners(chaos, policies, s, layout, network); });
  }
  std::optional<loss::LossConfig> loss;
  if (s.loss) {
    errors.attempt("loss", [&] {
      ObjectReader r(s.loss->json, "loss", s.file, &errors);
      r.log_defaults_to(s.defaults);
      loss = loss::LossConfig::from_json(r);
      r.finish();
    });
  }
  std::optional<CostRates> cost;
  if (s.cost) cost = resolve_cost(s, layout, errors);
  errors.throw_if_any();
  nlohmann::json resolved = scenario::with_defaults(doc, *s.defaults);
  return PreparedScenario{std::move(s),        std::move(layout),     std::move(network),
                          std::move(failures), std::move(stragglers), std::move(policies),
                          std::move(chaos),    std::move(loss),       UINT64_MAX,
                          std::move(resolved), std::move(cost)};
}

namespace {

// Failure and repair instants on the shared "cluster" track of the timeline:
// written once for all policies, since they face the same history (a policy
// whose history differs, through a failure scope, gets its own track).
class TraceCluster : public cluster::ClusterObserver {
 public:
  explicit TraceCluster(const RunContext& ctx)
      : ctx_(ctx), cursor_(ctx.trace->shared_cursor(ctx.trace_pid, "cluster", "failures")) {}
  void on_cluster_change(const cluster::ClusterChange& c) override {
    nlohmann::json args = {{"domain", cluster::domain_name(c.domain)}, {"id", c.id}};
    if (c.failed) args["cause"] = ctx_.cluster.cause_name(c.cause);
    ctx_.trace->shared_instant(cursor_, key(c), c.failed ? "failure" : "repair", ctx_.sim.now(),
                               args);
  }

 private:
  // Identifies the change within the history: time, target, failure or repair.
  uint64_t key(const cluster::ClusterChange& c) const {
    uint64_t h = static_cast<uint64_t>(ctx_.sim.now().ns());
    for (uint64_t v : {static_cast<uint64_t>(c.domain), static_cast<uint64_t>(c.id),
                       static_cast<uint64_t>(c.failed)}) {
      h = (h ^ v) * 0x9e3779b97f4a7c15ULL;
      h ^= h >> 31;
    }
    return h;
  }
  const RunContext& ctx_;
  output::SharedCursor cursor_;
};

// Schedules a sample at every sample interval from 0 to the horizon.
void schedule_samples(core::Simulation& sim, core::HandlerId sampler, core::SimTime horizon,
                      core::Duration every) {
  for (core::SimTime t = core::SimTime::zero(); t <= horizon; t += every) {
    sim.schedule_at(t, core::kBandObserve, sampler);
    if (t == horizon || horizon - t < every) break;
  }
}

void trace_counters(const RunContext& ctx, const output::TimeseriesRow& row) {
  if (ctx.trace == nullptr) return;
  const core::SimTime t = ctx.sim.now();
  ctx.trace->counter(ctx.trace_pid, "healthy chips", t, static_cast<double>(row.healthy_chips));
  ctx.trace->counter(ctx.trace_pid, "active chips", t, static_cast<double>(row.active_chips));
  ctx.trace->counter(ctx.trace_pid, "goodput (cumulative)", t, row.goodput);
}

// Runs to the horizon; with a progress callback, in kProgressSlices slices of simulated
// time, calling it after each. run_until(a) then run_until(b) executes exactly the events
// run_until(b) would (events at a included in the first), so results do not change.
constexpr int64_t kProgressSlices = 1000;

void run_in_slices(core::Simulation& sim, core::SimTime horizon, const std::string& policy,
                   const RunProgress& progress) {
  if (!progress) return sim.run_until(horizon);
  const int64_t span = horizon.ns();
  for (int64_t k = 1; k <= kProgressSlices; ++k) {
    // span x k / kProgressSlices without overflow.
    const auto until = core::SimTime::from_ns(span / kProgressSlices * k +
                                              span % kProgressSlices * k / kProgressSlices);
    if (until < sim.now()) continue;
    sim.run_until(until);
    if (sim.stopped() || sim.event_limit_reached()) return;
    progress(policy, until.seconds_f(), horizon.seconds_f(), sim.events_executed());
  }
}

[[noreturn]] void throw_event_limit(const PreparedScenario& prepared, const PreparedPolicy& pp,
                                    const core::Simulation& sim) {
  const scenario::Scenario& s = prepared.scenario;
  throw scenario::ScenarioError(
      s.file ? *s.file : "", "",
      fmt::format("policy \"{}\" was stopped after {} events, at {:.6g} s of the {:.6g} s "
                  "horizon: the run would exceed --max-events; shorten the horizon, lower "
                  "the rates, or raise --max-events",
                  pp.name, sim.events_executed(), sim.now().since_start().seconds_f(),
                  s.horizon.seconds_f()));
}

}  // namespace

namespace {

// Longest expected first (policy_work); policy order if the ranking cannot be made
// (a policy that cannot even be built then fails in its own run, in policy order).
std::vector<size_t> dispatch_order(const PreparedScenario& prepared) {
  try {
    return longest_first(policy_work(prepared, estimate_resources(prepared)));
  } catch (...) {
    return longest_first(std::vector<double>(prepared.policies.size(), 0.0));
  }
}

// The policies of `prepared` on `jobs` threads (the calling one included), started
// longest expected first (policy_work, longest_first); results, spools and errors are
// kept by policy index, so the outputs do not depend on that order. Policy i is skipped
// only when a policy before it (in policy order) threw, so the first failure in policy
// order is always found.
std::vector<output::PolicyResult> run_in_parallel(const PreparedScenario& prepared, uint64_t seed,
                                                  output::EventLog* events,
                                                  const RunProgress& progress, unsigned jobs) {
  const size_t n = prepared.policies.size();
  std::vector<std::optional<output::PolicyResult>> results(n);
  std::vector<std::exception_ptr> errors(n);
  std::vector<std::unique_ptr<output::EventLog>> spools(n);
  for (auto& spool : spools) {
    if (events != nullptr) {
      spool = std::make_unique<output::EventLog>(output::EventLog::Spool{}, events->target(),
                                                 events->max_bytes());
    }
  }
  const std::vector<size_t> order = dispatch_order(prepared);
  std::atomic<size_t> next{0};
  std::atomic<size_t> first_failed{n};
  const auto work = [&] {
    for (size_t k = next++; k < n; k = next++) {
      const size_t i = order[k];
      if (i >= first_failed) continue;
      try {
        results[i] = run_policy(prepared, i, seed, spools[i].get(), nullptr, progress);
      } catch (...) {
        errors[i] = std::current_exception();
        for (size_t f = first_failed; i < f && !first_failed.compare_exchange_weak(f, i);) {
        }
      }
    }
  };
  {
    std::vector<std::jthread> threads;
    try {
      for (size_t k = 1; k < std::min<size_t>(jobs, n); ++k) threads.emplace_back(work);
    } catch (const std::system_error&) {  // fewer threads than asked: the others do the work
    }
    work();
  }
  std::vector<output::PolicyResult> out;
  for (size_t i = 0; i < n; ++i) {
    if (errors[i]) std::rethrow_exception(errors[i]);
    if (events != nullptr) events->append(*spools[i]);
    out.push_back(std::move(*results[i]));
  }
  return out;
}

}  // namespace

output::PolicyResult run_policy(const PreparedScenario& prepared, size_t index, uint64_t seed,
                                output::EventLog* events, output::TraceWriter* trace,
                                const RunProgress& progress) {
  const PreparedPolicy& pp = prepared.policies.at(index);
  core::Simulation sim(seed);
  cluster::ClusterState cluster(prepared.layout);
  cluster::Network network = prepared.network;  // this run's copy: chaos may partition it
  const uint32_t trace_pid = trace != nullptr ? trace->process(pp.name) : 0;
  std::optional<LossTracker> loss;
  if (prepared.loss) {
    loss.emplace(loss::make_loss_model(*prepared.loss), prepared.scenario.job.target_loss, sim);
  }
  RunContext ctx{sim,     cluster, network,   prepared.scenario.job,        events,
                 pp.name, trace,   trace_pid, loss ? &*loss : nullptr};
  const scenario::JobSpec& job = prepared.scenario.job;
  std::optional<policy::LayerStepModel> layers;
  if (!job.layer_params.empty()) ctx.layer_model = &layers.emplace(job.layer_params, job.step_time);
  ctx.end = core::SimTime::zero() + prepared.scenario.horizon;
  FailureCounter counter;
  cluster.add_observer(&counter);
  SliceDownTracker down_slices(prepared.layout.spare_slices(), cluster.down_slices());
  cluster.add_observer(&down_slices);
  std::optional<TraceCluster> traced;
  if (trace != nullptr) cluster.add_observer(&traced.emplace(ctx));
  std::unique_ptr<policy::Policy> policy = pp.make();
  cluster.add_observer(policy.get());
  ctx.use = policy.get();
  std::vector<std::unique_ptr<failure::FailureInjector>> injectors;
  for (const PreparedFailure& f : prepared.failures) injectors.push_back(f.make(f.stream));
  std::vector<std::unique_ptr<straggler::StragglerModel>> stragglers;
  for (const PreparedStraggler& m : prepared.stragglers) stragglers.push_back(m.make(m.stream));

  output::PolicyResult result;
  result.name = pp.name;
  result.type = pp.type;
  const auto wall_start = std::chrono::steady_clock::now();
  policy->start(ctx);
  for (auto& inj : injectors) inj->start(ctx);
  for (auto& m : stragglers) m->start(ctx);
  std::unique_ptr<failure::ChaosScript> chaos;  // none without a timeline: no extra handlers
  if (!prepared.chaos.events.empty()) {
    chaos = std::make_unique<failure::ChaosScript>(prepared.chaos);
    chaos->start(ctx, *policy);
  }
  const core::HandlerId sampler = sim.add_handler("sampler", [&](const core::Event&) {
    policy->flush_loss(sim.now());
    result.series.push_back(sample_row(*policy, cluster, sim.now()));
    if (loss) result.series.back().loss = loss->loss();
    trace_counters(ctx, result.series.back());
  });
  const core::SimTime horizon = core::SimTime::zero() + prepared.scenario.horizon;
  schedule_samples(sim, sampler, horizon, prepared.scenario.outputs.sample_interval);
  sim.set_event_limit(prepared.max_events);
  run_in_slices(sim, horizon, pp.name, progress);
  if (sim.event_limit_reached()) throw_event_limit(prepared, pp, sim);
  // A policy that reached its target stopped the run early: its books close then.
  const core::SimTime end = sim.now();
  policy->finish(end);
  if (end < horizon) {
    result.series.push_back(sample_row(*policy, cluster, end));
    if (loss) result.series.back().loss = loss->loss();
  }
  if (trace != nullptr) trace->close_process(ctx.trace_pid, end);
  policy->ledger().check_invariant();
  GOODSIM_CHECK(policy->ledger().last_advance() == end);
  fill_result(result, *policy, sim, prepared.layout, end.since_start());
  policy->describe(result.diagnostics, end);
  down_slices.fill(result.diagnostics, end);
  result.diagnostics.end_s = end.seconds_f();
  result.diagnostics.job_slices = prepared.layout.slices() - prepared.layout.spare_slices();
  result.learners = policy->learner_results(end);
  result.wan_bytes = policy->wan_bytes(end);
  result.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  result.failures = counter.count();
  result.failure_causes = counter.by_cause(cluster);
  if (loss) {
    result.final_loss = loss->loss();
    if (prepared.scenario.job.target_loss) {
      result.time_to_target_s.reset();
      if (auto t = loss->target_reached_at()) result.time_to_target_s = t->seconds_f();
    }
  }
  if (prepared.cost) {
    RunUsage usage{{}, end.seconds_f(), result.tokens, result.wan_bytes, result.time_to_target_s};
    for (size_t i = 0; i < usage.chip_seconds.size(); ++i)
      usage.chip_seconds[i] = policy->ledger().chip_seconds(static_cast<policy::Category>(i));
    result.cost = price_run(*prepared.cost, usage);
  }
  return result;
}

PilotCount pilot_run(const PreparedScenario& prepared, size_t index, uint64_t seed,
                     uint64_t budget) {
  struct Stop {
    PilotCount count;
  };
  const RunProgress stop_at_budget = [budget](const std::string&, double sim_s, double,
                                              uint64_t events) {
    if (events >= budget) throw Stop{{events, sim_s, false}};
  };
  try {
    const output::PolicyResult r =
        run_policy(prepared, index, seed, nullptr, nullptr, stop_at_budget);
    return {r.events, r.diagnostics.end_s, true};
  } catch (const Stop& stop) {
    return stop.count;
  }
}

output::TraceOptions trace_options(const PreparedScenario& prepared, uint64_t max_records) {
  output::TraceOptions o;
  o.max_records = max_records;
  o.processes = static_cast<uint32_t>(prepared.policies.size()) + 1;  // + the shared cluster
  o.horizon = prepared.scenario.horizon;
  return o;
}

output::RunResult run_header(const PreparedScenario& prepared, uint64_t seed) {
  output::RunResult run;
  run.scenario = prepared.scenario.name;
  run.seed = seed;
  run.version = core::kVersion;
  run.resolved = prepared.resolved;
  if (run.resolved.is_object()) run.resolved["seed"] = seed;
  run.horizon_s = prepared.scenario.horizon.seconds_f();
  run.chips = prepared.layout.chips();
  return run;
}

output::RunResult run_scenario(const PreparedScenario& prepared, uint64_t seed,
                               output::EventLog* events, output::TraceWriter* trace,
                               const RunProgress& progress, unsigned jobs) {
  output::RunResult run = run_header(prepared, seed);
  if (jobs > 1 && prepared.policies.size() > 1 && trace == nullptr) {
    run.policies = run_in_parallel(prepared, seed, events, progress, jobs);
    return run;
  }
  for (size_t i = 0; i < prepared.policies.size(); ++i) {
    run.policies.push_back(run_policy(prepared, i, seed, events, trace, progress));
  }
  return run;
}

}  // namespace goodsim::models
