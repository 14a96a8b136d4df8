// The accounting of decoupled_diloco's merges: what one merged round did
// (RoundRecord, the inputs of a loss model), the run's totals (SyncerStats,
// read by the results and the summary event), and the arithmetic that folds
// a round's contributions into both. Pure functions of their arguments.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "sim/core/time.h"

namespace goodsim::models::policy {

// One learner's reports merged in a round (decoupled_diloco_merge.h).
struct Contribution {
  uint32_t learner = 0;
  uint64_t own = 0;         // own step of the (latest) report
  uint32_t pieces = 0;      // reports with progress of their own
  bool in_quorum = false;   // a report of the merged round or a later one
  double tokens = 0;
  double weight = 0;        // sum over pieces of tokens x tokens / steps
  uint64_t staleness = 0;   // inner steps since the base, plus an inherited age
};

// What one merged round did: the inputs of a loss model.
struct RoundRecord {
  core::SimTime time;          // merge time
  uint32_t fragment = 0;
  uint64_t round = 0;
  uint32_t quorum = 0;         // merged reports of this round or later
  uint32_t contributors = 0;   // all merged reports, late ones included
  double tokens = 0;           // tokens merged (since each contributor's base)
  double weight = 0;           // sum of w = tokens x tokens / steps
  uint64_t max_staleness = 0;  // inner steps
  double mean_staleness = 0;
  core::Duration grace_wait;   // from quorum to merge
  core::Duration sync_time;    // pull + slowest broadcast
};

// Summary over all merged rounds of a run. Sums and counts add up; maxima
// are kept. Per-learner vectors are sized M by the syncer's start().
struct SyncerStats {
  uint64_t rounds = 0;
  uint64_t quorum_sum = 0;
  uint32_t quorum_max = 0;
  uint64_t contributions = 0;
  uint64_t staleness_sum = 0;
  uint64_t staleness_max = 0;
  core::Duration grace_wait;  // total
  uint64_t grace_rounds = 0;  // rounds that waited for more reports
  core::Duration sync_time;   // total
  uint64_t late = 0;          // fragments reaching a quorum member after tau steps
  core::Duration lateness;    // total
  core::Duration lateness_max;
  double tokens_merged = 0;
  double wan_bytes = 0;  // fragment pulls and broadcasts between sites
  uint64_t rejoins = 0;
  uint64_t rejoin_staleness_max = 0;  // age of state inherited on rejoin, steps
  uint64_t clock_jumps = 0;
  // Per learner: merged contributions, those in the round's quorum (a report
  // of the merged round or a later one, not a late one), and their staleness.
  std::vector<uint64_t> learner_contributions;
  std::vector<uint64_t> learner_quorum;
  std::vector<uint64_t> learner_staleness_sum;

  double mean_quorum() const { return rounds ? double(quorum_sum) / double(rounds) : 0; }
  double mean_contributors() const {
    return rounds ? double(contributions) / double(rounds) : 0;
  }
  double mean_staleness() const {
    return contributions ? double(staleness_sum) / double(contributions) : 0;
  }
  // Mean staleness of learner m's merged contributions; nullopt if none was merged.
  std::optional<double> learner_mean_staleness(uint32_t m) const {
    if (m >= learner_contributions.size() || learner_contributions[m] == 0) return std::nullopt;
    return double(learner_staleness_sum[m]) / double(learner_contributions[m]);
  }
  // Lateness of a fragment that reached a quorum member `late` after its sync point.
  void add_late(core::Duration late);
};

// Completes `rec` (quorum, contributors, tokens, weight, staleness) from the
// round's contributions and adds the round to `stats`. REQUIRES: every
// contribution's learner < stats' per-learner sizes.
void tally_round(RoundRecord& rec, const std::vector<Contribution>& merged, SyncerStats& stats);

// The sums and counts that b added to a (maxima and rejoin fields left 0):
// one period of the fast-forward. REQUIRES: b is a later state of a.
SyncerStats stats_delta(const SyncerStats& a, const SyncerStats& b);
// Adds k copies of delta d (stats_delta) to s.
void add_times(SyncerStats& s, const SyncerStats& d, uint64_t k);

// d x k, in whole nanoseconds.
inline core::Duration times(core::Duration d, uint64_t k) {
  return core::Duration::nanos(d.ns() * static_cast<int64_t>(k));
}

}  // namespace goodsim::models::policy
