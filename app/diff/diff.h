// goodsim diff A B: every metric of two results side by side, with the change
// (B - A), its 95% confidence interval and whether it is significant.
//
// A and B are run directories, `run --seeds` directories, sweep directories or
// baseline files of `goodsim check` (diff_input.h), in any combination. Rows are
// matched by group (scenario name or grid point; when each side has a single
// group they are matched whatever their names) and policy name.
//
// Intervals. When both sides ran the same seeds, the change is the mean of the
// per-seed differences B_k - A_k (common random numbers: a seed's failure history
// is the same on both sides, so its noise cancels) with the Student-t interval of
// that mean. Otherwise the sides are compared unpaired (Welch: SE = sqrt(sa^2/na +
// sb^2/nb), t with the Welch-Satterthwaite degrees of freedom), with a warning.
// With fewer than 2 values on a side there is no interval.
//
// Significance is the rule of `goodsim check` (app/sweep/compare.h): a change
// beyond max(3 SE, 0.1% of |A|) is "better", "worse" or, for failures (an input
// property), "changed"; below that "same". Three standard errors rather than the
// 1.96 of the 95% interval, because a diff makes some 30 comparisons at once
// and would otherwise flag one or two by chance (per comparison P(|t_{n-1}| > 3):
// 5.8% at 4 seeds, 2% at 8, 0.27% in the limit; docs/report.md). With n < 2 it
// is "n/a".
//
// Rules (--fail-on, repeatable): "METRIC OP X" with OP one of < <= > >=, on the
// change B - A ("goodput<-0.01": fail when goodput dropped by more than 0.01).
// A rule fires on a row when the change satisfies it and is significant (or
// significance cannot be judged, n < 2), or when the metric has a value in A and
// none in B. Exit codes: 0 no rule fired, 1 a rule fired, 2 bad input.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "app/diff/diff_input.h"
#include "app/sweep/stats.h"

namespace goodsim::app::diff {

struct DiffOptions {
  std::string a, b;
  std::vector<std::string> fail_on;
  std::string format = "text";  // text, markdown, json or junit
  std::string out_dir;          // when set: also write diff.json and diff.md there
  std::vector<std::string> argv;  // the command line, recorded in diff.json
};

struct FailRule {
  std::string text;
  size_t metric = 0;
  std::string op;  // "<", "<=", ">", ">="
  double threshold = 0;
};

// "goodput<-0.01" etc.; throws ScenarioError (at --fail-on) naming the rule.
FailRule parse_rule(const std::string& text);

struct DiffRow {
  std::string group, policy;
  size_t metric = 0;
  sweep::Estimate a, b;
  double change = 0;                      // b.mean - a.mean (NaN when a side has no value)
  std::optional<double> lo, hi;           // 95% CI of the change
  size_t n = 0;                           // pairs (paired) or min(na, nb)
  bool paired = false;
  std::string verdict;                    // better, worse, changed, same, n/a, missing in A|B
  std::vector<std::string> fired;         // the rules this row broke

  bool significant() const;
};

struct DiffResult {
  Side a, b;
  std::vector<DiffRow> rows;
  std::vector<std::string> warnings;
  std::vector<FailRule> rules;

  size_t fired() const;
};

// Compares the two sides. Throws ScenarioError when nothing matches.
DiffResult diff_sides(Side a, Side b, const std::vector<FailRule>& rules);

int diff_command(const DiffOptions& options, std::ostream& out, std::ostream& err);

}  // namespace goodsim::app::diff
