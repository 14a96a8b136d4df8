// trace_replay: injects exactly the outages listed in a CSV failure trace.
//
// The format is documented in docs/trace-format.md. In short: a header row
// naming the columns `time`, `duration`, `target` and optionally `cause`, then
// one outage per row:
//   time,duration,target,cause
//   2h,45m,chip:123,faulty GPU
// Each row fails its target (a chip, host, slice or site) at `time` and
// repairs it at `time + duration`, with the row's root cause (interned in the
// run's ClusterState; an empty cause is "unspecified"). Outages are injected
// whatever the target's state: overlapping rows stack, as in ClusterState.
//
// The whole file is read and validated when the scenario is prepared, so
// `goodsim validate` reports bad rows (file, line, column and what was
// expected) and ids out of range for the cluster before anything runs. Rows
// are sorted by time, stably (rows with equal times keep file order). Rows at
// or after the horizon are kept but never fire, so a long trace can drive a
// shorter run.
//
// Cost: the parsed trace is shared (read-only) by every policy run; a run
// keeps one pending failure event plus one pending repair per open outage.
#pragma once

#include <cstdint>
#include <istream>
#include <memory>
#include <string>
#include <vector>

#include "models/configured_model.h"
#include "models/failure/failure_injector.h"
#include "models/parse_context.h"
#include "sim/cluster/layout.h"
#include "sim/core/time.h"
#include "sim/scenario/reader.h"

namespace goodsim::models::failure {

// One row of a trace, resolved against the cluster.
struct TraceOutage {
  core::Duration time;      // since the start of the run
  core::Duration duration;  // >= 0; the repair comes at time + duration
  cluster::Domain domain;
  uint32_t id = 0;          // < layout.count(domain)
  uint32_t cause = 0;       // index into Trace::causes
  uint32_t line = 0;        // line of the file, for logs and messages
};

// A parsed trace. Invariants: outages sorted by time (stable w.r.t. the file);
// causes[0] is "" (no cause given) and the others are distinct, in order of
// first appearance.
struct Trace {
  std::vector<TraceOutage> outages;
  std::vector<std::string> causes{""};
};

// Parses a trace from `in`; `label` names it in messages (usually its path).
// Throws scenario::ScenarioError(label, "line L, column C (name)", what was
// expected and found) for malformed rows, unknown targets and out-of-range ids.
Trace parse_trace(std::istream& in, const std::string& label, const cluster::Layout& layout);

struct TraceReplayConfig {
  std::string file;                    // as written in the scenario
  std::shared_ptr<const Trace> trace;  // null only when describing parameters

  // The model's expected_use (environment_model.h) with these parameters.
  ResourceUse expected_use(const cluster::Layout& layout, core::Duration horizon) const;
  // Reads "file" (relative to ctx.base_dir) and parses it against ctx.layout.
  static TraceReplayConfig from_json(scenario::ObjectReader& r, const ParseContext& ctx);
};

class TraceReplay : public ConfiguredModel<FailureInjector, TraceReplayConfig> {
 public:
  // REQUIRES: config.trace non-null and parsed against this run's layout.
  TraceReplay(TraceReplayConfig config, std::string stream);

  void start(RunContext& ctx) override;
  uint64_t failures() const override { return failures_; }

 private:
  void schedule_failure(size_t index);
  void on_failure(size_t index);
  void on_repair(size_t index);

  std::vector<cluster::CauseId> cause_ids_;  // per Trace::causes entry
  core::HandlerId failure_handler_ = 0;
  core::HandlerId repair_handler_ = 0;
  uint64_t failures_ = 0;
};

}  // namespace goodsim::models::failure
