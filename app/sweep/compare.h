// The regression rule of `goodsim check`: is a metric now worse than its
// baseline by more than chance allows?
//
// worse_by is the change in the metric's bad direction (metrics.h): baseline
// - now for higher-is-better metrics (goodput, uptime, tokens, steps), now -
// baseline for lower-is-better ones (downtime_s, outages, longest_outage_s,
// final_loss, time_to_target_s), |now - baseline| for failures (an input
// property: any change is flagged). The allowed worsening is
//   - the absolute tolerance, when one is given (--tolerance or the
//     baseline's "tolerance" for that metric);
//   - otherwise max(floor, 3 x SE), where SE is the standard error of the
//     difference of the means and floor = 0.1% of |baseline mean| (so
//     identical results always pass and tiny deterministic shifts do not fail
//     a build). Paired (the baseline holds per-seed values and the runs now
//     used the same seeds): SE = sd(now_k - baseline_k) / sqrt(n); the failure
//     history of a seed is the same both times, so its noise cancels and
//     much smaller real changes are caught. Otherwise:
//     SE = sqrt(sd_b^2/n_b + sd_now^2/n_now).
// Verdicts: kRegressed when worse_by > allowed (kChanged for failures),
// kImproved when -worse_by > allowed, kOk otherwise. A metric with no value
// now (e.g. the loss target no longer reached) but one in the baseline
// regresses.
#pragma once

#include <optional>
#include <string>

#include "app/sweep/baseline.h"
#include "app/sweep/metrics.h"
#include "app/sweep/stats.h"

namespace goodsim::app::sweep {

inline constexpr double kSigmas = 3.0;
inline constexpr double kRelativeFloor = 1e-3;

struct Verdict {
  enum class Kind { kOk, kImproved, kRegressed, kChanged };
  Kind kind = Kind::kOk;
  double change = 0;   // now - baseline
  double allowed = 0;  // allowed worsening
  std::string rule;    // "tolerance", "3 SE", "3 SE paired", "floor" or "no value"

  bool failed() const { return kind == Kind::kRegressed || kind == Kind::kChanged; }
};

// `paired`: the estimate of now_k - baseline_k over the same seeds, when the
// baseline has per-seed values and the seeds match.
Verdict compare_metric(const BaselineMetric& baseline, const Estimate& now, Better better,
                       std::optional<double> tolerance,
                       const std::optional<Estimate>& paired = std::nullopt);

const char* verdict_name(Verdict::Kind kind);

}  // namespace goodsim::app::sweep
