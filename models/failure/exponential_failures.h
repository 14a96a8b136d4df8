// exponential_failures: every chip fails independently with exponentially
// distributed lifetimes (mean `mtbf` of up-time), and is repaired after a
// `repair_time` drawn from a distribution (fixed by default). A fraction of
// chips can be lemons that fail `lemon_multiplier` times as often. Each
// failure carries a root cause drawn from `causes`.
//
// Sampled by superposition with thinning: one clock for the non-lemon chips
// at rate (chips - lemons) / mtbf, and one for the lemons at rate
// lemons * multiplier / mtbf. Each arrival picks a chip uniformly from its
// clock's subset (a lemon by index; a non-lemon by rejection of lemons, O(1)
// expected as long as lemons are not most of the fleet); if that chip is
// already down (from this or any other outage), the arrival is discarded.
// Because lifetimes are memoryless this is exactly a per-chip Poisson process
// of rate 1 / mtbf (multiplier / mtbf for a lemon) while the chip is up, at
// O(1) per arrival and at most two pending clock events instead of one event
// per chip.
//
// Draws from the stream, in order: the lemon set at start (only when
// lemon_fraction > 0, see lemon_set.h); per clock arrival: the chip, the next
// gap; per failure: the cause (only with several causes), the repair (see
// repair_pipeline.h), and with lemon cleaning, per repaired lemon, a uniform.
// With no lemons, one cause and a fixed repair time the sequence is the same
// as the original single-clock injector's.
//
// Lemon cleaning: a repair of a lemon makes it a normal chip with probability
// `lemon_clean`. The lemon clock keeps its rate; an arrival on a cleaned
// lemon is kept with probability 1 / lemon_multiplier (one more uniform), so
// a cleaned lemon fails at the normal rate.
//
// Scope (docs/model-guide.md, "Failure scope"): `all` chips fail; `allocated`:
// only chips of slices the policy uses (ctx.use); `running`: only while
// their slice computes. With a scope other than `all`, every arrival also
// draws one 64-bit seed from the stream, and that arrival's cause, repair and
// cleaning (and the thinning uniform of a cleaned lemon) come from an Rng
// seeded with it, whether or not the arrival becomes a failure. The stream
// then depends only on (seed, scenario): every policy sees the same candidate
// failures (time, chip, cause, repair), thinned by its own state.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "models/failure/cause_mix.h"
#include "models/failure/lemon_injector.h"
#include "models/failure/repair_pipeline.h"
#include "sim/core/distributions.h"
#include "sim/core/rng.h"
#include "sim/scenario/reader.h"

namespace goodsim::models::failure {

struct ExponentialFailuresConfig {
  core::Duration mtbf = core::Duration::days(365);  // mean up-time of one chip between failures
  double lemon_fraction = 0;    // in [0, 1]: share of chips that are lemons
  double lemon_multiplier = 1;  // >= 1: a lemon's failure rate / a normal chip's
  CauseMix causes = CauseMix::single("unspecified");
  RepairPipeline repair = RepairPipeline::single(core::Distribution::fixed(3600));
  double lemon_clean = 0;  // probability that a repair turns a lemon normal
  enum class Scope { kAll, kAllocated, kRunning } scope = Scope::kAll;

  const RepairPipeline& repair_law() const { return repair; }
  // The model's expected_use (environment_model.h) with these parameters.
  ResourceUse expected_use(const cluster::Layout& layout, core::Duration horizon) const;
  static ExponentialFailuresConfig from_json(scenario::ObjectReader& r);
};

class ExponentialFailures : public LemonInjector<ExponentialFailuresConfig> {
 public:
  using LemonInjector::LemonInjector;
  void start(RunContext& ctx) override;
  // Lemons turned normal by repairs so far.
  uint64_t lemons_cleaned() const { return lemons_cleaned_; }
  // Outages whose repair ended at each stage of config.repair.
  const std::vector<uint64_t>& repairs_by_stage() const { return outages_.by_stage(); }

 private:
  enum Clock : uint64_t { kNormal = 0, kLemon = 1 };
  void schedule_next_arrival(Clock clock);
  void on_arrival(Clock clock);
  cluster::ChipId pick_chip(Clock clock);
  bool in_scope(cluster::ChipId chip) const;
  bool cleaned(cluster::ChipId chip) const { return !cleaned_.empty() && cleaned_[chip]; }
  void fail_chip(core::Rng& rng, Clock clock, cluster::ChipId chip);
  void on_repaired(cluster::ChipId chip);

  double mean_gap_s_[2] = {0, 0};  // 0: that clock has no chips
  core::HandlerId arrival_handler_ = 0;
  std::vector<bool> cleaned_;       // per chip (only with lemon cleaning)
  std::vector<bool> clean_on_repair_;  // decided when the lemon failed
  uint64_t lemons_cleaned_ = 0;
};

}  // namespace goodsim::models::failure
