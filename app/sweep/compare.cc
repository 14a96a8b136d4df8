#include "app/sweep/compare.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace goodsim::app::sweep {
namespace {

double variance_of_mean(double sd, size_t n) {
  if (n == 0 || std::isnan(sd)) return 0;
  return sd * sd / static_cast<double>(n);
}

}  // namespace

Verdict compare_metric(const BaselineMetric& baseline, const Estimate& now, Better better,
                       std::optional<double> tolerance, const std::optional<Estimate>& paired) {
  Verdict v;
  if (now.n == 0) {
    v.kind = Verdict::Kind::kRegressed;
    v.change = std::numeric_limits<double>::quiet_NaN();
    v.rule = "no value";
    return v;
  }
  v.change = now.mean - baseline.mean;
  if (tolerance) {
    v.allowed = *tolerance;
    v.rule = "tolerance";
  } else {
    const double se = paired ? std::sqrt(variance_of_mean(paired->sd, paired->n))
                             : std::sqrt(variance_of_mean(baseline.sd, baseline.n) +
                                         variance_of_mean(now.sd, now.n));
    const double floor = kRelativeFloor * std::fabs(baseline.mean);
    v.allowed = std::max(floor, kSigmas * se);
    v.rule = kSigmas * se < floor ? "floor" : paired ? "3 SE paired" : "3 SE";
  }
  const double worse_by = better == Better::kHigher  ? -v.change
                          : better == Better::kLower ? v.change
                                                     : std::fabs(v.change);
  if (worse_by > v.allowed) {
    v.kind = better == Better::kNone ? Verdict::Kind::kChanged : Verdict::Kind::kRegressed;
  } else if (better != Better::kNone && -worse_by > v.allowed) {
    v.kind = Verdict::Kind::kImproved;
  }
  return v;
}

const char* verdict_name(Verdict::Kind kind) {
  switch (kind) {
    case Verdict::Kind::kOk:
      return "ok";
    case Verdict::Kind::kImproved:
      return "improved";
    case Verdict::Kind::kRegressed:
      return "REGRESSED";
    case Verdict::Kind::kChanged:
      return "CHANGED";
  }
  return "?";
}

}  // namespace goodsim::app::sweep
