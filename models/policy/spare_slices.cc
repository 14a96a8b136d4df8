#include "models/policy/spare_slices.h"

namespace goodsim::models::policy {

namespace {

cluster::SliceId first_spare(const cluster::Layout& l) { return l.slices() - l.spare_slices(); }

}  // namespace

SpareSlices::SpareSlices(const cluster::ClusterState& cluster)
    : health_(cluster, first_spare(cluster.layout()), cluster.layout().slices()),
      chips_(uint64_t{cluster.layout().spare_slices()} * cluster.layout().chips_per_slice()) {}

void SpareSlices::add_split(ChipTimeLedger::Split& split) const {
  const uint64_t down = health_.down_chips();
  split[static_cast<size_t>(Category::kDown)] += chip_units(down);
  split[static_cast<size_t>(Category::kIdle)] += chip_units(chips_ - down);
}

}  // namespace goodsim::models::policy
