#include "models/policy/decoupled_diloco_transfers.h"

#include <algorithm>

namespace goodsim::models::policy {

FragmentTransfers::FragmentTransfers(const RunContext& ctx, const DecoupledDilocoConfig& config)
    : ctx_(ctx), one_site_(ctx.layout().sites() == 1),
      bytes_(config.transfer.bytes(ctx.job, config.fragments)) {
  for (const double b : bytes_) {
    intra_time_.push_back(core::Duration::from_seconds(b * 8.0 / ctx.job.intra_site_bps));
  }
  if (one_site_ && !intra_time_.empty()) {
    delivery_bound_ = *std::max_element(intra_time_.begin(), intra_time_.end()) * 2;
  }
}

void FragmentTransfers::begin(uint32_t p, bool to_syncer) {
  fragment_ = p;
  to_syncer_ = to_syncer;
  count_ = 0;
  flows_.clear();
}

void FragmentTransfers::add(cluster::SiteId site) {
  ++count_;
  if (one_site_) return;  // every flow runs at intra_site_bps: no flows built
  if (to_syncer_) {
    flows_.push_back({site, kSyncerSite, bytes_[fragment_]});
  } else {
    flows_.push_back({kSyncerSite, site, bytes_[fragment_]});
  }
}

const FragmentTransfers::Times& FragmentTransfers::times() {
  times_.assign(count_, intra_time_[fragment_]);
  wan_bytes_ = 0;
  if (one_site_ || count_ == 0) return times_;
  const auto wan = concurrent_transfer_times(ctx_.network, flows_);
  for (size_t i = 0; i < flows_.size(); ++i) {
    if (flows_[i].from == flows_[i].to) continue;
    times_[i] = wan[i];
    if (wan[i]) wan_bytes_ += flows_[i].bytes;
  }
  return times_;
}

core::Duration FragmentTransfers::longest() {
  core::Duration longest = core::Duration::zero();
  for (const auto& t : times()) longest = std::max(longest, t.value_or(longest));
  return longest;
}

}  // namespace goodsim::models::policy
