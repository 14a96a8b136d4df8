#include "models/failure/chaos_script.h"

#include <fmt/format.h>

#include <array>

#include "models/enum_choice.h"
#include "sim/core/check.h"
#include "sim/scenario/error.h"
#include "sim/scenario/reader.h"
#include "sim/scenario/units.h"

namespace goodsim::models::failure {
namespace {

using scenario::ObjectReader;
using Kind = ChaosTargetKind;

constexpr std::array<const char*, 5> kTargetKeys = {"chip", "host", "slice", "site", "learner"};

cluster::SiteId read_site(ObjectReader& r, const std::string& key, const cluster::Layout& layout,
                          std::string_view help) {
  std::vector<std::string> names;
  for (cluster::SiteId s = 0; s < layout.sites(); ++s) names.push_back(layout.site_name(s));
  const std::string name = r.choice(key, names, help);
  for (cluster::SiteId s = 0; s < layout.sites(); ++s) {
    if (names[s] == name) return s;
  }
  return 0;  // describing: the placeholder is the first site
}

ChaosTarget read_target(ObjectReader& t, const cluster::Layout& layout) {
  std::vector<size_t> given;
  for (size_t k = 0; k < kTargetKeys.size(); ++k) {
    if (t.has(kTargetKeys[k])) given.push_back(k);
  }
  t.finish();  // a misspelt key gets its did-you-mean before the count check below
  if (given.size() != 1) {
    t.fail("", fmt::format("expected exactly one of \"chip\", \"host\", \"slice\", \"site\" "
                           "(a name) or \"learner\", got {}", given.size()));
  }
  const auto kind = static_cast<Kind>(given[0]);
  const char* key = kTargetKeys[given[0]];
  if (kind == Kind::kSite) return {kind, read_site(t, key, layout, "site name")};
  if (kind == Kind::kLearner) {
    const int64_t k = t.count(key, "learner index, checked against each policy", 0, UINT32_MAX);
    return {kind, static_cast<uint32_t>(k)};
  }
  const auto domain = static_cast<cluster::Domain>(kind);
  const int64_t id = t.count(key, "id of the unit", 0);
  const uint64_t count = layout.count(domain);
  if (static_cast<uint64_t>(id) >= count) {
    t.fail(key, fmt::format("{} {} is out of range: the cluster has {} {}s (ids 0 to {})", key, id,
                            count, key, count - 1));
  }
  return {kind, static_cast<uint32_t>(id)};
}

ChaosEvent read_event(ObjectReader& r, const cluster::Layout& layout, core::Duration horizon) {
  ChaosEvent e;
  e.path = r.path();
  e.at = r.duration("at", "when the action begins, from the start of the run");
  if (e.at >= horizon) {
    r.fail("at", fmt::format("{} is not before the horizon ({}): the action would never happen",
                             scenario::format_duration(e.at), scenario::format_duration(horizon)));
  }
  e.action = read_enum<ChaosAction>(r, "action",
                                    {{"fail", ChaosAction::kFail},
                                     {"slow", ChaosAction::kSlow},
                                     {"partition", ChaosAction::kPartition}},
                                    "what happens to the target");
  e.duration = r.duration("duration", "how long the action lasts", core::Duration::nanos(1));
  if (e.action == ChaosAction::kPartition) {
    e.target = {Kind::kSite, read_site(r, "site", layout, "site cut off from the WAN")};
    return e;
  }
  ObjectReader t = r.object("target", "one of chip, host, slice (ids), site (a name), learner");
  e.target = read_target(t, layout);
  if (e.action == ChaosAction::kFail) {
    e.cause = r.string("cause", "chaos", "root cause counted in summary.json");
    if (e.cause.empty()) r.fail("cause", "expected a non-empty cause");
  } else {
    e.factor = r.unit("x").number("factor", "step-time multiplier while slowed, e.g. 1.5", 1.0, 1e6);
    e.mode = read_enum(r, "mode",
                       {{"scale", cluster::SlowdownMode::kScale},
                        {"slowest", cluster::SlowdownMode::kSlowest}},
                       cluster::SlowdownMode::kScale,
                       "scale: multiplies other slowdowns; slowest: a slow member");
  }
  return e;
}

cluster::SlowdownTarget slowdown_target(const ChaosTarget& t) {
  return cluster::SlowdownTarget::of(static_cast<cluster::Domain>(t.kind), t.id);
}

}  // namespace

const char* chaos_action_name(ChaosAction a) {
  switch (a) {
    case ChaosAction::kFail: return "fail";
    case ChaosAction::kSlow: return "slow";
    case ChaosAction::kPartition: return "partition";
  }
  return "?";
}

ChaosTimeline parse_chaos(const scenario::Scenario& s, const cluster::Layout& layout,
                          scenario::ErrorList& errors) {
  ChaosTimeline timeline;
  timeline.file = s.file ? *s.file : "";
  for (const scenario::ModelEntry& entry : s.chaos) {
    errors.attempt(entry.path, [&] {
      ObjectReader r(entry.json, entry.path, s.file, &errors);
      r.log_defaults_to(s.defaults);
      timeline.events.push_back(read_event(r, layout, s.horizon));
      r.finish();
    });
  }
  return timeline;
}

ChaosTimeline parse_chaos(const scenario::Scenario& s, const cluster::Layout& layout) {
  scenario::ErrorList errors;
  ChaosTimeline timeline = parse_chaos(s, layout, errors);
  errors.throw_if_any();
  return timeline;
}

void check_learner_targets(const ChaosTimeline& timeline, uint32_t learners,
                           const std::string& policy_name) {
  for (const ChaosEvent& e : timeline.events) {
    if (e.target.kind != Kind::kLearner || e.target.id < learners) continue;
    throw scenario::ScenarioError(
        timeline.file, scenario::join_path(e.path, "target.learner"),
        fmt::format("learner {} does not exist: policy \"{}\" has {} learner{} (0 to {})",
                    e.target.id, policy_name, learners, learners == 1 ? "" : "s",
                    learners == 0 ? 0 : learners - 1));
  }
}

void ChaosScript::start(RunContext& ctx, LearnerView& policy) {
  ctx_ = &ctx;
  policy_ = &policy;
  check_learner_targets(timeline_, policy.learner_count(), ctx.policy_name);
  const size_t n = timeline_.events.size();
  causes_.assign(n, cluster::kUnspecifiedCause);
  learner_units_.assign(n, {});
  slowdowns_.assign(n, {});
  for (size_t i = 0; i < n; ++i) {
    const ChaosEvent& e = timeline_.events[i];
    if (e.action == ChaosAction::kFail) causes_[i] = ctx.cluster.intern_cause(e.cause);
  }
  trace_track_ = ctx.trace_track("chaos");
  begin_handler_ = ctx.sim.add_handler("chaos.begin", [this](const core::Event& ev) {
    begin(static_cast<size_t>(ev.a));
  });
  end_handler_ = ctx.sim.add_handler("chaos.end", [this](const core::Event& ev) {
    end(static_cast<size_t>(ev.a));
  });
  for (size_t i = 0; i < n; ++i) {
    ctx.sim.schedule_at(core::SimTime::zero() + timeline_.events[i].at, core::kBandFailure,
                        begin_handler_, i);
  }
}

void ChaosScript::begin(size_t index) {
  const ChaosEvent& e = timeline_.events[index];
  ++actions_;
  if (e.target.kind == Kind::kLearner) learner_units_[index] = learner_slices(e);
  apply(index, true);
  nlohmann::json fields = {{"entry", e.path}, {"action", chaos_action_name(e.action)},
                           {"target", describe_target(index)},
                           {"duration_s", e.duration.seconds_f()}};
  if (e.action == ChaosAction::kFail) fields["cause"] = e.cause;
  if (e.action == ChaosAction::kSlow) fields["factor"] = e.factor;
  announce(index, true, fields);
  ctx_->sim.schedule_in(e.duration, core::kBandRepair, end_handler_, index);
}

void ChaosScript::end(size_t index) {
  const ChaosEvent& e = timeline_.events[index];
  apply(index, false);
  announce(index, false, {{"entry", e.path},
                          {"action", chaos_action_name(e.action)},
                          {"target", describe_target(index)}});
}

void ChaosScript::apply(size_t index, bool starting) {
  const ChaosEvent& e = timeline_.events[index];
  switch (e.action) {
    case ChaosAction::kFail: fail_or_repair(index, starting); break;
    case ChaosAction::kSlow: slow(index, starting); break;
    case ChaosAction::kPartition:
      ctx_->network.set_site_partitioned(e.target.id, starting);
      policy_->on_network_change();
      break;
  }
}

void ChaosScript::announce(size_t index, bool starting, const nlohmann::json& fields) {
  const char* action = chaos_action_name(timeline_.events[index].action);
  ctx_->log(starting ? "chaos_begin" : "chaos_end", fields);
  ctx_->trace_instant(trace_track_,
                      fmt::format("chaos {} {}", action, starting ? "begins" : "ends"), fields);
}

std::vector<cluster::SliceId> ChaosScript::learner_slices(const ChaosEvent& e) const {
  GOODSIM_CHECK(e.target.id < policy_->learner_count());
  return policy_->learner_slices(e.target.id);
}

void ChaosScript::fail_or_repair(size_t index, bool failing) {
  const ChaosEvent& e = timeline_.events[index];
  const core::SimTime now = ctx_->sim.now();
  cluster::ClusterState& cluster = ctx_->cluster;
  auto apply = [&](cluster::Domain d, uint32_t id) {
    if (failing) {
      cluster.fail(d, id, now, causes_[index]);
    } else {
      cluster.repair(d, id, now);
    }
  };
  if (e.target.kind != Kind::kLearner) {
    apply(static_cast<cluster::Domain>(e.target.kind), e.target.id);
    return;
  }
  for (cluster::SliceId s : learner_units_[index]) apply(cluster::Domain::kSlice, s);
}

void ChaosScript::slow(size_t index, bool starting) {
  const ChaosEvent& e = timeline_.events[index];
  const core::SimTime now = ctx_->sim.now();
  std::vector<cluster::SlowdownId>& ids = slowdowns_[index];
  if (!starting) {
    for (cluster::SlowdownId id : ids) ctx_->cluster.remove_slowdown(id, now);
    ids.clear();
    return;
  }
  if (e.target.kind != Kind::kLearner) {
    ids.push_back(ctx_->cluster.add_slowdown(slowdown_target(e.target), e.factor, e.mode, now));
    return;
  }
  for (cluster::SliceId s : learner_units_[index]) {
    ids.push_back(ctx_->cluster.add_slowdown(cluster::SlowdownTarget::slice(s), e.factor, e.mode,
                                             now));
  }
}

nlohmann::json ChaosScript::describe_target(size_t index) const {
  const ChaosTarget& t = timeline_.events[index].target;
  switch (t.kind) {
    case Kind::kSite: return {{"site", ctx_->layout().site_name(t.id)}};
    case Kind::kLearner: return {{"learner", t.id}, {"slices", learner_units_[index]}};
    default: return {{kTargetKeys[static_cast<size_t>(t.kind)], t.id}};
  }
}

}  // namespace goodsim::models::failure
