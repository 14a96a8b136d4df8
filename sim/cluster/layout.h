// The static shape of a cluster: chips -> hosts -> slices -> sites.
//
// Chips are numbered densely, host-major: chip c sits on host c / chips_per_host
// and in slice c / chips_per_slice. Membership is therefore arithmetic and
// costs no memory per chip or slice: a slice's site is found by binary search
// over the sites' first slices, so a Layout holds O(sites) memory.
// Slices of one site are contiguous, sites in declaration order.
//
// A slice is the unit that runs one SPMD program: any of its chips failing
// stops the slice.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace goodsim::cluster {

using ChipId = uint32_t;
using HostId = uint32_t;
using SliceId = uint32_t;
using SiteId = uint32_t;

// The four failure domains, smallest first.
enum class Domain : uint8_t { kChip = 0, kHost = 1, kSlice = 2, kSite = 3 };
const char* domain_name(Domain d);

struct SiteShape {
  std::string name;
  uint32_t slices = 0;
};

// Immutable after construction. REQUIRES (checked, std::invalid_argument):
// chips_per_host >= 1, hosts_per_slice >= 1, every site has >= 1 slice, total
// chips <= 2^32 - 1, spare_slices < slices.
//
// Spare slices are the last `spare_slices` slices: policies start them idle and
// may swap them in for failed ones.
class Layout {
 public:
  Layout(uint32_t chips_per_host, uint32_t hosts_per_slice, std::vector<SiteShape> sites,
         uint32_t spare_slices = 0);

  uint64_t chips() const { return uint64_t{slices_} * chips_per_slice_; }
  uint32_t hosts() const { return slices_ * hosts_per_slice_; }
  uint32_t slices() const { return slices_; }
  uint32_t spare_slices() const { return spare_slices_; }
  uint32_t sites() const { return static_cast<uint32_t>(sites_.size()); }
  uint32_t chips_per_host() const { return chips_per_host_; }
  uint32_t hosts_per_slice() const { return hosts_per_slice_; }
  uint32_t chips_per_slice() const { return chips_per_slice_; }

  HostId host_of(ChipId c) const { return c / chips_per_host_; }
  SliceId slice_of(ChipId c) const { return c / chips_per_slice_; }
  SliceId slice_of_host(HostId h) const { return h / hosts_per_slice_; }
  SiteId site_of(SliceId s) const;
  const std::string& site_name(SiteId s) const { return sites_[s].name; }
  // Slices of site s are [first_slice_of(s), first_slice_of(s) + slices_of(s)).
  SliceId first_slice_of(SiteId s) const { return site_first_slice_[s]; }
  uint32_t slices_of(SiteId s) const { return sites_[s].slices; }
  // Number of units of `d` and the number of chips one unit spans.
  uint64_t count(Domain d) const;
  uint64_t chips_in(Domain d, uint32_t id) const;
  // First chip of unit `id` of domain `d`; its chips are contiguous.
  ChipId first_chip(Domain d, uint32_t id) const;
  // The slices unit `id` of domain `d` has chips in: [first, end).
  struct SliceSpan {
    SliceId first = 0;
    SliceId end = 0;
  };
  SliceSpan slice_span(Domain d, uint32_t id) const;

 private:
  uint32_t chips_per_host_;
  uint32_t hosts_per_slice_;
  uint32_t chips_per_slice_;
  uint32_t slices_ = 0;
  uint32_t spare_slices_ = 0;
  std::vector<SiteShape> sites_;
  std::vector<SliceId> site_first_slice_;
};

}  // namespace goodsim::cluster
