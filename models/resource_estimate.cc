#include "models/resource_estimate.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "sim/cluster/cluster_state.h"
#include "sim/output/run_result.h"
#include "sim/scenario/error.h"
#include "sim/scenario/units.h"

namespace goodsim::models {
namespace {

// Events and memory of one run's models (failures, stragglers, chaos timeline).
ResourceUse model_use(const PreparedScenario& p) {
  const cluster::Layout& layout = p.layout;
  const core::Duration horizon = p.scenario.horizon;
  ResourceUse use;
  for (const PreparedFailure& f : p.failures) use += f.make(f.stream)->expected_use(layout, horizon);
  for (const PreparedStraggler& m : p.stragglers) {
    use += m.make(m.stream)->expected_use(layout, horizon);
  }
  use.events += 2 * static_cast<double>(p.chaos.events.size());  // an action and its end
  return use;
}

// A running policy's per-slice tables: a role byte in its SlicePool
// (models/policy/slice_pool.h) and a 4-byte down-chip count in each group's
// SliceRangeHealth; sets of down members and up spares grow with failures, not
// slices. Rounded up to 8 bytes a slice.
constexpr double kPolicyBytesPerSlice = 8;

}  // namespace

ResourceEstimate estimate_resources(const PreparedScenario& p) {
  const ResourceUse models = model_use(p);
  const double samples =
      p.scenario.horizon.seconds_f() / p.scenario.outputs.sample_interval.seconds_f() + 1;
  const auto policies = static_cast<double>(p.policies.size());
  const bool slowdowns = !p.stragglers.empty() || !p.chaos.events.empty();
  ResourceEstimate e;
  e.events_per_run = models.events + samples;
  e.events = e.events_per_run * policies;
  e.run_bytes = cluster::ClusterState::table_bytes_for(p.layout, slowdowns) + models.bytes +
                kPolicyBytesPerSlice * static_cast<double>(p.layout.slices());
  e.bytes = e.run_bytes + samples * policies * sizeof(output::TimeseriesRow);
  return e;
}

std::vector<double> policy_work(const PreparedScenario& p, const ResourceEstimate& estimate) {
  std::vector<double> work;
  work.reserve(p.policies.size());
  for (const PreparedPolicy& pp : p.policies) {
    // 0 before start() is "one per site" (diloco's per_site placement).
    const uint32_t count = pp.make()->learner_count();
    const uint32_t learners = std::max<uint32_t>(1, count != 0 ? count : p.layout.sites());
    work.push_back(estimate.events_per_run * learners);
  }
  return work;
}

std::vector<size_t> longest_first(const std::vector<double>& work) {
  std::vector<size_t> order(work.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return work[a] > work[b]; });
  return order;
}

ResourceEstimate measure_events(const PreparedScenario& p, ResourceEstimate estimate,
                                uint64_t budget) {
  const double horizon_s = p.scenario.horizon.seconds_f();
  estimate.events = 0;
  estimate.events_per_run = 0;
  for (size_t i = 0; i < p.policies.size(); ++i) {
    const PilotCount pilot = pilot_run(p, i, p.scenario.seed, budget);
    const auto events = static_cast<double>(pilot.events);
    const double run = pilot.finished || !(pilot.sim_s > 0) ? events
                                                            : events * horizon_s / pilot.sim_s;
    estimate.events += run;
    estimate.events_per_run = std::max(estimate.events_per_run, run);
  }
  return estimate;
}

void enforce_limits(PreparedScenario& prepared, const ResourceEstimate& estimate,
                    const ResourceLimits& limits) {
  const auto refuse = [&](const std::string& message) {
    throw scenario::ScenarioError(prepared.scenario.file ? *prepared.scenario.file : "", "",
                                  message);
  };
  // Written as !(x <= limit) so that a NaN estimate is refused too.
  if (!(estimate.events <= limits.max_events)) {
    refuse(fmt::format("the run would execute about {:.3g} events ({:.3g} per policy), more "
                       "than --max-events {:.3g}; shorten the horizon, lower the failure or "
                       "straggler rates, or raise --max-events",
                       estimate.events, estimate.events_per_run, limits.max_events));
  }
  if (!(estimate.bytes <= limits.max_bytes)) {
    refuse(fmt::format("the run would need about {} of memory for its per-chip and per-slice "
                       "tables, more than --max-memory {}; use fewer chips or slices (larger "
                       "chips_per_host or hosts_per_slice), or raise --max-memory",
                       scenario::format_bytes(estimate.bytes),
                       scenario::format_bytes(limits.max_bytes)));
  }
  prepared.max_events = static_cast<uint64_t>(std::min(limits.max_events, 1.8e19));
}

std::string describe_estimate(const ResourceEstimate& estimate) {
  return fmt::format("about {:.3g} events, {}", estimate.events,
                     scenario::format_bytes(estimate.bytes));
}

}  // namespace goodsim::models
