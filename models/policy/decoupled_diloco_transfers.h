// The transfers of decoupled_diloco's syncer (docs/decoupled_diloco.md, "One
// round of fragment p", step 4): the pull of a fragment from its contributors
// to the syncer's site and the broadcast of the merged fragment to the
// learners, and whether a learner's site reaches the syncer's at all.
//
// A fragment moves FragmentTransfer::bytes (transfer_bits, job.layers). The
// flows of one phase start together: a flow inside a site runs at
// job.intra_site_bps; flows across sites share WAN links
// (concurrent_transfer_times, comm_model.h) over the run's network, which
// chaos partitions change (read when asked, never cached). The syncer sits
// at site 0.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "models/policy/comm_model.h"
#include "models/policy/decoupled_diloco_config.h"
#include "models/run_context.h"

namespace goodsim::models::policy {

class FragmentTransfers {
 public:
  static constexpr cluster::SiteId kSyncerSite = 0;
  // Per flow: its time, nullopt when its sites are not connected.
  using Times = std::vector<std::optional<core::Duration>>;

  // `ctx` must outlive this object.
  FragmentTransfers(const RunContext& ctx, const DecoupledDilocoConfig& config);

  // Bytes of fragment p (its share of the transfer).
  double bytes(uint32_t p) const { return bytes_[p]; }
  // With one site: the longest time from a merge to its arrival at a learner
  // (the largest fragment's pull plus its broadcast, both inside the site).
  // nullopt with several sites (WAN flows share links).
  std::optional<core::Duration> delivery_bound() const { return delivery_bound_; }
  // With one site every flow of fragment p takes the same time (inside the
  // site, nothing partitioned, no WAN bytes): that time; nullopt otherwise.
  std::optional<core::Duration> uniform_time(uint32_t p) const {
    if (!one_site_) return std::nullopt;
    return intra_time_[p];
  }
  // The syncer can exchange fragments with a learner at `site` (no partition
  // between). Asked for every learner at every round: inline.
  bool reachable(cluster::SiteId site) const {
    return site == kSyncerSite || ctx_.network.route(site, kSyncerSite).reachable;
  }

  // Starts a phase of fragment p's flows: to the syncer (a pull) or from it.
  void begin(uint32_t p, bool to_syncer);
  // Adds a flow to or from a learner at `site`.
  void add(cluster::SiteId site);
  // The times of the flows added since begin(), in order. Valid until the
  // next begin().
  const Times& times();
  // The longest of times(), partitioned flows left out (zero if none).
  core::Duration longest();
  // The bytes of the flows of the last times() that cross a site boundary
  // and are not partitioned: what the phase sends over the WAN.
  double wan_bytes() const { return wan_bytes_; }

 private:
  const RunContext& ctx_;
  bool one_site_;
  std::vector<double> bytes_;                // per fragment
  std::vector<core::Duration> intra_time_;   // per fragment, inside a site
  std::optional<core::Duration> delivery_bound_;
  // The phase under way: built only with more than one site.
  uint32_t fragment_ = 0;
  bool to_syncer_ = false;
  size_t count_ = 0;
  std::vector<Flow> flows_;
  Times times_;
  double wan_bytes_ = 0;
};

}  // namespace goodsim::models::policy
