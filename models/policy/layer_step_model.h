// The layer-level step model (job.layers): how much of a data-parallel step's
// gradient all-reduce stays exposed once each layer's reduce overlaps the
// backward pass of the layers below it.
//
// A step of L layers is a DAG of 4L - 1 nodes:
//   F_1 .. F_L            forward, in order;
//   A_L .. A_2            backward for activations (A_l needs A_{l+1}, or F_L);
//   W_L .. W_1            backward for weights (W_l needs A_{l+1}, or F_L);
//   R_L .. R_1            the reduce of layer l's gradients (needs W_l).
// The chips run the compute nodes one at a time in the order F_1..F_L, then
// A_L, W_L, A_{L-1}, W_{L-1}, ..., A_2, W_2, W_1 (layer 1 needs no activation
// gradient). Layer l's compute is proportional to its parameter count p_l:
// each of its forward, activation and weight nodes takes p_l x u, where u =
// compute / (3 sum p - p_1), so the compute nodes add up to the step time.
//
// Reduces run in the order their gradients exist (R_L first) on two links in
// series: the intra-site ring (occupancy intra x p_l / sum p) and then, when
// the group spans sites, the WAN ring (occupancy wan x p_l / sum p). Each link
// serves one reduce at a time; as a link is work-conserving, the last reduce
// ends at the same time as with equal sharing among the reduces in flight.
// The WAN route latency is a pipeline delay paid once, by the last reduce.
// The step ends when its last node (R_1) ends; the next step's forward needs
// the reduced weights of layer 1, so steps do not overlap.
//
// With one layer nothing overlaps: the step is compute + intra + wan +
// latency, the layer-free model with comm_overlap 0. Infinite bandwidth gives
// the compute time.
//
// Cost: O(L) per distinct (intra, wan, latency); results are cached, so a run
// pays it once per network state, not once per step or per event.
#pragma once

#include <cstdint>
#include <map>
#include <tuple>
#include <vector>

#include "sim/core/time.h"

namespace goodsim::models::policy {

// What one step's whole gradient reduce costs on an otherwise idle network.
struct ReduceCost {
  core::Duration intra;    // intra-site ring all-reduce of every layer (link occupancy)
  core::Duration wan;      // WAN ring all-reduce of every layer, without latency
  core::Duration latency;  // WAN route latency (zero within one site)
};

class LayerStepModel {
 public:
  // `layer_params`: parameter count of each layer, input to output; `compute`:
  // the step's compute time. REQUIRES: at least one layer, every count > 0,
  // compute > 0.
  LayerStepModel(const std::vector<double>& layer_params, core::Duration compute);

  // The step's duration: when its last node ends (not cached).
  core::Duration step_time(const ReduceCost& cost) const;
  // step_time(cost) - compute: the communication the backward pass cannot
  // hide. Cached per distinct cost (the cache is cleared when it grows past
  // kMaxCached entries, which bounds its memory).
  core::Duration exposed(const ReduceCost& cost);

  size_t layers() const { return share_.size(); }
  core::Duration compute() const { return compute_; }
  size_t cached() const { return cache_.size(); }

  static constexpr size_t kMaxCached = 4096;

 private:
  std::vector<double> share_;    // p_l / sum p, in reduce order (layer L first)
  std::vector<double> release_;  // seconds into the step when W_l ends, same order
  core::Duration compute_;
  std::map<std::tuple<int64_t, int64_t, int64_t>, core::Duration> cache_;
};

}  // namespace goodsim::models::policy
