#include "models/policy/decoupled_diloco_config.h"

#include <algorithm>
#include <string>

#include "models/policy/elastic_spec.h"

namespace goodsim::models::policy {
namespace {

using scenario::ObjectReader;

std::string str(uint64_t v) { return std::to_string(v); }

void read_schedule_and_sizes(ObjectReader& r, DecoupledDilocoConfig& c) {
  c.learners = static_cast<uint32_t>(
      r.count("learners", c.learners, "M: learners, each an elastic DP group on its own "
              "contiguous share of the member slices", 1, UINT32_MAX));
  c.inner_steps = static_cast<uint64_t>(
      r.count("inner_steps", static_cast<int64_t>(c.inner_steps),
              "H: inner steps between two syncs of one fragment", 1));
  c.fragments = static_cast<uint32_t>(
      r.count("fragments", c.fragments, "P: fragments of the model, synced on staggered "
              "offsets floor(p H / P)", 1, UINT32_MAX));
  c.overlap_steps = static_cast<uint64_t>(
      r.count("overlap_steps", static_cast<int64_t>(c.overlap_steps),
              "tau: inner steps of compute a fragment's sync may overlap before it is late"));
  c.quorum = static_cast<uint32_t>(
      r.count("quorum", c.quorum, "K: reports a fragment round waits for (1: never stops "
              "while a learner lives; M and no grace: synchronous)", 1, UINT32_MAX));
}

void read_grace(ObjectReader& r, DecoupledDilocoConfig& c) {
  c.grace = r.boolean("grace", c.grace, "after the quorum, wait an adaptive window for "
                      "more reports");
  c.gamma = r.fraction("gamma", c.gamma, "grace <= gamma x (tau x step - time to quorum - "
                       "sync time), averaged; must be below 1");
  c.ema_weight = r.fraction("ema_weight", c.ema_weight, "weight of the newest observation "
                            "in the grace window's moving averages", 1e-6, 1.0);
  if (c.gamma >= 1.0) r.fail("gamma", "gamma must be below 1 (got " + std::to_string(c.gamma) + ")");
}

void read_costs(ObjectReader& r, DecoupledDilocoConfig& c) {
  c.state_bytes = r.optional_bytes("state_bytes", "parameters + optimizer state a rejoining "
                                   "learner pulls from a peer (default 3 x gradient_bytes)");
  c.rejoin_overhead = r.duration("rejoin_overhead", core::Duration::minutes(5),
                                 "restart of a learner's program when it rejoins, on top of "
                                 "the state pull");
  c.elastic.downscale_time = r.duration("downscale_time", core::Duration::seconds(30),
                                        "pause of a learner when one of its slices leaves");
  c.elastic.upscale_time = r.duration("upscale_time", core::Duration::seconds(30),
                                      "pause of a learner when one of its slices returns");
  c.elastic.min_slices = static_cast<uint32_t>(
      r.count("min_slices", 1, "fewest slices a learner trains with; below it the learner "
              "is down and later rejoins", 1, UINT32_MAX));
  c.elastic.restart_time = c.rejoin_overhead;
  read_resize_rules(r, c.elastic);
}

void read_windows(ObjectReader& r, DecoupledDilocoConfig& c) {
  for (ObjectReader& w : r.optional_object_list(
           "schedule", "scavenged learners: each present only in its [join, leave) windows")) {
    ScavengeWindow s;
    s.learner = static_cast<uint32_t>(w.count("learner", "learner index", 0, UINT32_MAX));
    s.join = w.duration("join", "when the learner's capacity arrives");
    s.leave = w.duration("leave", "when it is taken away again", core::Duration::nanos(1));
    if (w.describing()) continue;
    if (s.learner >= c.learners) {
      w.fail("learner", "learner " + str(s.learner) + " does not exist (learners: " +
                            str(c.learners) + ")");
    }
    if (s.leave <= s.join) w.fail("leave", "leave must be after join");
    for (const ScavengeWindow& o : c.schedule) {
      if (o.learner == s.learner && s.join < o.leave && o.join < s.leave) {
        w.fail("join", "windows of learner " + str(s.learner) + " overlap");
      }
    }
    c.schedule.push_back(s);
  }
}

void check_against_layout(ObjectReader& r, const DecoupledDilocoConfig& c,
                          const cluster::Layout& layout) {
  const uint32_t members = layout.slices() - layout.spare_slices();
  if (c.learners > members) {
    r.fail("learners", "more learners (" + str(c.learners) + ") than member slices (" +
                           str(members) + ")");
  }
  const uint32_t smallest = members / c.learners;
  if (c.elastic.min_slices > smallest) {
    r.fail("min_slices", "min_slices (" + str(c.elastic.min_slices) +
                             ") exceeds the smallest learner's " + str(smallest) + " slices");
  }
}

}  // namespace

DecoupledDilocoConfig DecoupledDilocoConfig::from_json(ObjectReader& r, const ParseContext& ctx) {
  DecoupledDilocoConfig c;
  read_schedule_and_sizes(r, c);
  c.transfer = FragmentTransfer::from_json(r, ctx, c.fragments);
  read_grace(r, c);
  read_costs(r, c);
  read_windows(r, c);
  c.fast_forward = r.boolean("fast_forward", c.fast_forward,
                             "between changes, advance steady stretches of rounds in closed "
                             "form, and skip learners whose fragments provably come in time "
                             "(same results; off: every round is an event)");
  if (r.describing()) return c;
  if (c.fragments > c.inner_steps) {
    r.fail("fragments", "fragments P (" + str(c.fragments) + ") must not exceed inner_steps H (" +
                            str(c.inner_steps) + ")");
  }
  if (c.overlap_steps > c.inner_steps) {
    r.fail("overlap_steps", "overlap_steps tau (" + str(c.overlap_steps) +
                                ") must not exceed inner_steps H (" + str(c.inner_steps) + ")");
  }
  if (c.quorum > c.learners) {
    r.fail("quorum", "quorum K (" + str(c.quorum) + ") exceeds the " + str(c.learners) +
                         " learners");
  }
  if (ctx.layout != nullptr) check_against_layout(r, c, *ctx.layout);
  return c;
}

}  // namespace goodsim::models::policy
