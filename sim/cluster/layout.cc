#include "sim/cluster/layout.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "sim/core/check.h"

namespace goodsim::cluster {

const char* domain_name(Domain d) {
  switch (d) {
    case Domain::kChip: return "chip";
    case Domain::kHost: return "host";
    case Domain::kSlice: return "slice";
    case Domain::kSite: return "site";
  }
  return "?";
}

Layout::Layout(uint32_t chips_per_host, uint32_t hosts_per_slice, std::vector<SiteShape> sites,
               uint32_t spare_slices)
    : chips_per_host_(chips_per_host),
      hosts_per_slice_(hosts_per_slice),
      spare_slices_(spare_slices),
      sites_(std::move(sites)) {
  if (chips_per_host_ == 0 || hosts_per_slice_ == 0) {
    throw std::invalid_argument("chips_per_host and hosts_per_slice must be >= 1");
  }
  const uint64_t per_slice = uint64_t{chips_per_host_} * hosts_per_slice_;
  if (sites_.empty()) throw std::invalid_argument("a cluster needs at least one site");
  uint64_t total_slices = 0;
  for (const SiteShape& s : sites_) {
    if (s.slices == 0) throw std::invalid_argument("site '" + s.name + "' has no slices");
    total_slices += s.slices;
  }
  if (per_slice * total_slices > UINT32_MAX) {
    throw std::invalid_argument("cluster too large: more than 2^32-1 chips");
  }
  chips_per_slice_ = static_cast<uint32_t>(per_slice);
  slices_ = static_cast<uint32_t>(total_slices);
  if (spare_slices_ >= slices_) throw std::invalid_argument("every slice would be a spare");
  SliceId first = 0;
  for (const SiteShape& s : sites_) {
    site_first_slice_.push_back(first);
    first += s.slices;
  }
}

SiteId Layout::site_of(SliceId s) const {
  const auto after = std::upper_bound(site_first_slice_.begin(), site_first_slice_.end(), s);
  return static_cast<SiteId>(after - site_first_slice_.begin() - 1);
}

uint64_t Layout::count(Domain d) const {
  switch (d) {
    case Domain::kChip: return chips();
    case Domain::kHost: return hosts();
    case Domain::kSlice: return slices_;
    case Domain::kSite: return sites_.size();
  }
  return 0;
}

uint64_t Layout::chips_in(Domain d, uint32_t id) const {
  switch (d) {
    case Domain::kChip: return 1;
    case Domain::kHost: return chips_per_host_;
    case Domain::kSlice: return chips_per_slice_;
    case Domain::kSite: return uint64_t{sites_[id].slices} * chips_per_slice_;
  }
  return 0;
}

ChipId Layout::first_chip(Domain d, uint32_t id) const {
  GOODSIM_CHECK(id < count(d));
  switch (d) {
    case Domain::kChip: return id;
    case Domain::kHost: return id * chips_per_host_;
    case Domain::kSlice: return id * chips_per_slice_;
    case Domain::kSite: return site_first_slice_[id] * chips_per_slice_;
  }
  return 0;
}

Layout::SliceSpan Layout::slice_span(Domain d, uint32_t id) const {
  const uint64_t first = first_chip(d, id);
  const uint64_t last = first + chips_in(d, id) - 1;
  return {static_cast<SliceId>(first / chips_per_slice_),
          static_cast<SliceId>(last / chips_per_slice_ + 1)};
}

}  // namespace goodsim::cluster
