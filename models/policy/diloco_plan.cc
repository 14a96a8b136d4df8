#include "models/policy/diloco_plan.h"

#include <algorithm>
#include <string>

#include "models/enum_choice.h"
#include "models/policy/comm_model.h"
#include "models/policy/elastic_spec.h"
#include "models/policy/layer_step_model.h"
#include "sim/core/check.h"

namespace goodsim::models::policy {

std::vector<SliceRange> place_learners(const cluster::Layout& layout, uint32_t learners,
                                       LearnerPlacement placement) {
  const uint32_t members = layout.slices() - layout.spare_slices();
  GOODSIM_CHECK(learners >= 1);
  std::vector<SliceRange> out;
  out.reserve(learners);
  if (placement == LearnerPlacement::kPerSite) {
    GOODSIM_CHECK(learners == layout.sites());
    for (cluster::SiteId s = 0; s < layout.sites(); ++s) {
      const cluster::SliceId first = std::min(layout.first_slice_of(s), members);
      const cluster::SliceId end = std::min(first + layout.slices_of(s), members);
      out.push_back({first, end});
    }
    return out;
  }
  GOODSIM_CHECK(learners <= members);
  cluster::SliceId first = 0;
  for (uint32_t k = 0; k < learners; ++k) {
    const uint32_t size = members / learners + (k < members % learners ? 1 : 0);
    out.push_back({first, first + size});
    first += size;
  }
  return out;
}

SyncSchedule::SyncSchedule(uint64_t inner_steps, uint32_t fragments)
    : inner_steps_(inner_steps), fragments_(fragments) {
  GOODSIM_CHECK(fragments >= 1 && fragments <= inner_steps);
}

// Sync points are the positive members of {r H + offset(p)}; counting the
// excluded step 0 (r = 0, p = 0) as number -1 makes the mapping a division.
uint64_t SyncSchedule::step(uint64_t sync) const {
  const uint64_t n = sync + 1;
  return n / fragments_ * inner_steps_ + offset(static_cast<uint32_t>(n % fragments_));
}

uint32_t SyncSchedule::fragment(uint64_t sync) const {
  return static_cast<uint32_t>((sync + 1) % fragments_);
}

std::optional<core::Duration> outer_allreduce_time(const RunContext& ctx,
                                                   const std::vector<cluster::SiteId>& sites,
                                                   double bytes) {
  const auto r = static_cast<uint32_t>(sites.size());
  if (r < 2) return core::Duration::zero();
  const core::Duration intra_hop = ring_allreduce_time(bytes, r, ctx.job.intra_site_bps);
  const std::vector<Flow> flows = ring_flows(sites, bytes);
  const auto times = concurrent_transfer_times(ctx.network, flows);
  core::Duration worst = core::Duration::zero();
  for (uint32_t i = 0; i < r; ++i) {
    if (!times[i]) return std::nullopt;
    worst = std::max(worst, flows[i].from == flows[i].to ? intra_hop : *times[i]);
  }
  return worst;
}

core::Duration exchange_stall(const RunContext& ctx, const std::vector<uint32_t>& layers,
                              core::Duration t, core::Duration latency, uint64_t tau) {
  const scenario::JobSpec& job = ctx.job;
  if (job.layer_params.empty()) {
    // In seconds first, so that no product of huge values overflows.
    const double hidden_s = job.step_time.seconds_f() * static_cast<double>(tau);
    if (hidden_s >= t.seconds_f()) return core::Duration::zero();
    return std::max(core::Duration::zero(), t - job.step_time * static_cast<int64_t>(tau));
  }
  const ReduceCost cost{core::Duration::zero(), t - latency, latency};
  if (ctx.layer_model != nullptr) return ctx.layer_model->exchange_delay(layers, cost, tau);
  return LayerStepModel(job.layer_params, job.step_time).exchange_delay(layers, cost, tau);
}

std::optional<core::Duration> model_pull_time(const RunContext& ctx, cluster::SiteId from,
                                              cluster::SiteId to, double bytes) {
  if (from == to) return core::Duration::from_seconds(bytes * 8.0 / ctx.job.intra_site_bps);
  return ctx.network.transfer_time(from, to, bytes);
}

namespace {

constexpr int64_t kMaxInnerSteps = 1'000'000'000;
constexpr uint32_t kDefaultLearners = 2;

// Cross-checks of the learner count and placement against the cluster;
// returns the learners' ranges, or nothing when describing.
std::optional<std::vector<SliceRange>> checked_placement(scenario::ObjectReader& r,
                                                         const ParseContext& ctx,
                                                         DilocoConfig& c) {
  if (r.describing() || ctx.layout == nullptr) return std::nullopt;
  const cluster::Layout& l = *ctx.layout;
  const uint32_t members = l.slices() - l.spare_slices();
  if (c.placement == LearnerPlacement::kPerSite) {
    if (c.learners == 0) c.learners = l.sites();
    if (c.learners != l.sites()) {
      r.fail("learners", "placement \"per_site\" needs one learner per site: " +
                             std::to_string(c.learners) + " learners but " +
                             std::to_string(l.sites()) + " sites");
    }
  } else if (c.learners > members) {
    r.fail("learners", std::to_string(c.learners) + " learners but only " +
                           std::to_string(members) + " job slices (slices - spare_slices)");
  }
  auto ranges = place_learners(l, c.learners, c.placement);
  for (cluster::SiteId s = 0; s < ranges.size(); ++s) {
    if (ranges[s].size() == 0) {
      r.fail("placement", "site \"" + l.site_name(s) +
                              "\" has no job slices (spare slices cover it): no learner fits");
    }
  }
  return ranges;
}

void check_schedule(scenario::ObjectReader& r, const DilocoConfig& c) {
  if (r.describing()) return;
  if (c.fragments > c.inner_steps) {
    r.fail("fragments", "fragments (" + std::to_string(c.fragments) +
                            ") must not exceed inner_steps (" + std::to_string(c.inner_steps) +
                            ")");
  }
  if (c.overlap_steps >= c.inner_steps) {
    r.fail("overlap_steps", "overlap_steps (" + std::to_string(c.overlap_steps) +
                                ") must be below inner_steps (" +
                                std::to_string(c.inner_steps) + ")");
  }
}

}  // namespace

DilocoConfig DilocoConfig::from_json(scenario::ObjectReader& r, const ParseContext& ctx) {
  DilocoConfig c;
  const auto learners = r.optional_count(
      "learners", "learners M (default: 2, or one per site with placement per_site)", 1,
      UINT32_MAX);
  c.placement = read_enum(r, "placement",
                          {{"contiguous", LearnerPlacement::kContiguous},
                           {"per_site", LearnerPlacement::kPerSite}},
                          c.placement,
                          "learner slices: near-equal contiguous shares, or one learner per "
                          "site");
  const bool per_site = c.placement == LearnerPlacement::kPerSite;
  c.learners = static_cast<uint32_t>(learners.value_or(per_site ? 0 : kDefaultLearners));
  c.inner_steps = static_cast<uint64_t>(
      r.count("inner_steps", 500, "H: inner steps between outer steps", 1, kMaxInnerSteps));
  c.fragments = static_cast<uint32_t>(r.count(
      "fragments", 1, "P: streaming fragments on staggered offsets (1: plain DiLoCo)", 1,
      UINT32_MAX));
  c.overlap_steps = static_cast<uint64_t>(r.count(
      "overlap_steps", 0, "tau: inner steps of compute that hide a sync's communication", 0,
      kMaxInnerSteps));
  c.drop_failed = r.boolean("drop_failed", false,
                            "barriers proceed without down learners (they rejoin later)");
  check_schedule(r, c);
  c.transfer = FragmentTransfer::from_json(r, ctx, c.fragments);
  const auto ranges = checked_placement(r, ctx, c);
  std::optional<uint32_t> smallest;
  if (ranges) {
    smallest = std::min_element(ranges->begin(), ranges->end(), [](auto& a, auto& b) {
                 return a.size() < b.size();
               })->size();
  }
  c.elastic = read_elastic_spec(r, smallest);
  return c;
}

}  // namespace goodsim::models::policy
