// `goodsim run --seeds N [--jobs J]`: N replications of one scenario (its seed
// and the next N-1), each written like a single run to DIR/seed-<seed>/, with
// the per-policy mean and Student-t 95% confidence interval of each metric in
// the table and in DIR/replications.csv (docs/outputs.md).
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "app/run_options.h"
#include "sim/output/run_result.h"

namespace goodsim::app {

// The metrics summarised over replications, in column order.
struct ReplicatedMetric {
  const char* name;
  double (*get)(const output::PolicyResult&);
};
const std::vector<ReplicatedMetric>& replicated_metrics();

// DIR/replications.csv: policy,type,metric,n,mean,sd,ci95 (one row per policy and
// metric; empty sd and ci95 with one run). REQUIRES: every run has the same policies.
std::string replications_csv(const std::vector<output::RunResult>& runs);

// REQUIRES: options.seeds >= 2. Throws scenario::ScenarioError on bad input.
int run_replications(const RunOptions& options, std::ostream& out, std::ostream& err);

}  // namespace goodsim::app
