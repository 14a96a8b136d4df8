#include "models/failure/exponential_failures.h"

#include "models/enum_choice.h"
#include "sim/scenario/distribution_reader.h"

namespace goodsim::models::failure {

ExponentialFailuresConfig ExponentialFailuresConfig::from_json(scenario::ObjectReader& r) {
  ExponentialFailuresConfig c;
  c.mtbf = r.duration("mtbf", core::Duration::days(365),
                      "mean up-time of one chip between failures", core::Duration::nanos(1));
  c.repair = RepairPipeline::from_json(r, core::Duration::hours(1));
  c.lemon_fraction = r.fraction("lemon_fraction", 0.0, "share of chips that are lemons");
  c.lemon_multiplier = r.unit("x").number("lemon_multiplier", 1.0,
                                "failure rate of a lemon / that of a normal chip", 1.0);
  c.causes = CauseMix::from_json(r, "causes", "unspecified");
  c.lemon_clean = r.fraction("lemon_clean", 0.0, "probability that a repair turns a lemon "
                             "into a normal chip");
  c.scope = read_enum(r, "scope",
                      {{"all", ExponentialFailuresConfig::Scope::kAll},
                       {"allocated", ExponentialFailuresConfig::Scope::kAllocated},
                       {"running", ExponentialFailuresConfig::Scope::kRunning}},
                      c.scope,
                      "which chips fail: all, allocated (only chips of slices the policy "
                      "uses) or running (only while their slice computes)");
  return c;
}

void ExponentialFailures::start(RunContext& ctx) {
  bind(ctx);
  const uint64_t chips = ctx.layout().chips();
  choose_lemons();
  const double mtbf_s = config_.mtbf.seconds_f();
  const uint64_t normal = chips - lemons_.size();
  if (normal > 0) mean_gap_s_[kNormal] = mtbf_s / static_cast<double>(normal);
  if (!lemons_.empty()) {
    mean_gap_s_[kLemon] =
        mtbf_s / (static_cast<double>(lemons_.size()) * config_.lemon_multiplier);
  }
  arrival_handler_ =
      add_handler("arrival", [this](const core::Event& e) { on_arrival(static_cast<Clock>(e.a)); });
  if (config_.lemon_clean > 0 && !lemons_.empty()) {
    cleaned_.assign(chips, false);
    clean_on_repair_.assign(chips, false);
  }
  start_outages([this](cluster::Domain, uint32_t id) { on_repaired(id); });
  for (Clock clock : {kNormal, kLemon}) {
    if (mean_gap_s_[clock] > 0) schedule_next_arrival(clock);
  }
}

void ExponentialFailures::schedule_next_arrival(Clock clock) {
  const double gap_s = core::exponential(*rng_, mean_gap_s_[clock]);
  ctx_->sim.schedule_in(core::Duration::from_seconds(gap_s), core::kBandFailure,
                        arrival_handler_, clock);
}

cluster::ChipId ExponentialFailures::pick_chip(Clock clock) {
  if (clock == kLemon) return lemons_.at(rng_->below(lemons_.size()));
  const uint64_t chips = ctx_->layout().chips();
  auto chip = static_cast<cluster::ChipId>(rng_->below(chips));
  while (lemons_.contains(chip)) chip = static_cast<cluster::ChipId>(rng_->below(chips));
  return chip;
}

void ExponentialFailures::on_arrival(Clock clock) {
  const cluster::ChipId chip = pick_chip(clock);
  schedule_next_arrival(clock);
  if (config_.scope == ExponentialFailuresConfig::Scope::kAll) {
    if (!ctx_->cluster.chip_up(chip)) return;  // thinning: a down chip cannot fail
    return fail_chip(*rng_, clock, chip);
  }
  // The arrival's own marks: drawn whether or not it becomes a failure, so the
  // stream never depends on the policy.
  core::Rng marks(rng_->next_u64());
  if (!ctx_->cluster.chip_up(chip) || !in_scope(chip)) return;
  fail_chip(marks, clock, chip);
}

bool ExponentialFailures::in_scope(cluster::ChipId chip) const {
  if (ctx_->use == nullptr) return true;
  const cluster::SliceId s = ctx_->layout().slice_of(chip);
  return config_.scope == ExponentialFailuresConfig::Scope::kAllocated
             ? ctx_->use->slice_allocated(s)
             : ctx_->use->slice_running(s);
}

// A cleaned lemon on the lemon clock is kept at the normal chip's share of
// that clock's rate; a repair of a lemon may clean it.
void ExponentialFailures::fail_chip(core::Rng& rng, Clock clock, cluster::ChipId chip) {
  if (clock == kLemon && cleaned(chip) && rng.uniform01() * config_.lemon_multiplier >= 1.0) {
    return;
  }
  outages_.begin_with(rng, cluster::Domain::kChip, chip);
  if (clock == kLemon && !clean_on_repair_.empty() && !cleaned(chip)) {
    clean_on_repair_[chip] = rng.uniform01() < config_.lemon_clean;
  }
}

void ExponentialFailures::on_repaired(cluster::ChipId chip) {
  if (clean_on_repair_.empty() || !clean_on_repair_[chip]) return;
  clean_on_repair_[chip] = false;
  cleaned_[chip] = true;
  ++lemons_cleaned_;
}


// Arrivals (each an event) at the fleet's rate, and as many repairs.
ResourceUse ExponentialFailuresConfig::expected_use(const cluster::Layout& layout,
                                                    core::Duration horizon) const {
  const auto chips = static_cast<double>(layout.chips());
  const double f = lemon_fraction;
  const double rate = chips * (1 - f + f * lemon_multiplier) / mtbf.seconds_f();
  return {2 * rate * horizon.seconds_f(), LemonSet::bytes_for(layout.chips(), f)};
}

}  // namespace goodsim::models::failure
