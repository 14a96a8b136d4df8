#include "models/policy/decoupled_diloco_stats.h"

#include <algorithm>

namespace goodsim::models::policy {

void SyncerStats::add_late(core::Duration d) {
  ++late;
  lateness += d;
  lateness_max = std::max(lateness_max, d);
}

void tally_round(RoundRecord& rec, const std::vector<Contribution>& merged, SyncerStats& st) {
  uint64_t staleness_sum = 0;
  for (const Contribution& k : merged) {
    ++st.learner_contributions[k.learner];
    st.learner_quorum[k.learner] += k.in_quorum ? 1 : 0;
    st.learner_staleness_sum[k.learner] += k.staleness;
    rec.quorum += k.in_quorum ? 1 : 0;
    rec.tokens += k.tokens;
    rec.weight += k.weight;
    rec.max_staleness = std::max(rec.max_staleness, k.staleness);
    staleness_sum += k.staleness;
  }
  rec.contributors = static_cast<uint32_t>(merged.size());
  rec.mean_staleness = merged.empty() ? 0.0 : double(staleness_sum) / double(merged.size());
  ++st.rounds;
  st.quorum_sum += rec.quorum;
  st.quorum_max = std::max(st.quorum_max, rec.quorum);
  st.contributions += rec.contributors;
  st.staleness_sum += staleness_sum;
  st.staleness_max = std::max(st.staleness_max, rec.max_staleness);
  st.grace_wait += rec.grace_wait;
  st.grace_rounds += rec.grace_wait > core::Duration::zero() ? 1 : 0;
  st.sync_time += rec.sync_time;
  st.tokens_merged += rec.tokens;
}

SyncerStats stats_delta(const SyncerStats& a, const SyncerStats& b) {
  SyncerStats d;
  d.rounds = b.rounds - a.rounds;
  d.quorum_sum = b.quorum_sum - a.quorum_sum;
  d.contributions = b.contributions - a.contributions;
  d.staleness_sum = b.staleness_sum - a.staleness_sum;
  d.grace_wait = b.grace_wait - a.grace_wait;
  d.grace_rounds = b.grace_rounds - a.grace_rounds;
  d.sync_time = b.sync_time - a.sync_time;
  d.late = b.late - a.late;
  d.lateness = b.lateness - a.lateness;
  d.tokens_merged = b.tokens_merged - a.tokens_merged;
  d.wan_bytes = b.wan_bytes - a.wan_bytes;
  d.learner_contributions.resize(b.learner_contributions.size());
  d.learner_quorum.resize(b.learner_quorum.size());
  d.learner_staleness_sum.resize(b.learner_staleness_sum.size());
  for (size_t m = 0; m < b.learner_contributions.size(); ++m) {
    d.learner_contributions[m] = b.learner_contributions[m] - a.learner_contributions[m];
    d.learner_quorum[m] = b.learner_quorum[m] - a.learner_quorum[m];
    d.learner_staleness_sum[m] = b.learner_staleness_sum[m] - a.learner_staleness_sum[m];
  }
  return d;
}

void add_times(SyncerStats& s, const SyncerStats& d, uint64_t k) {
  s.rounds += k * d.rounds;
  s.quorum_sum += k * d.quorum_sum;
  s.contributions += k * d.contributions;
  s.staleness_sum += k * d.staleness_sum;
  s.grace_wait += times(d.grace_wait, k);
  s.grace_rounds += k * d.grace_rounds;
  s.sync_time += times(d.sync_time, k);
  s.late += k * d.late;
  s.lateness += times(d.lateness, k);
  s.tokens_merged += static_cast<double>(k) * d.tokens_merged;
  s.wan_bytes += static_cast<double>(k) * d.wan_bytes;
  for (size_t m = 0; m < d.learner_contributions.size(); ++m) {
    s.learner_contributions[m] += k * d.learner_contributions[m];
    s.learner_quorum[m] += k * d.learner_quorum[m];
    s.learner_staleness_sum[m] += k * d.learner_staleness_sum[m];
  }
}

}  // namespace goodsim::models::policy
