// The layer-level step model (job.layers): the step as the Streaming DiLoCo
// paper's compute-utilization simulator draws it (arXiv 2501.18512, section
// 3.1): a DAG of per-layer nodes, and what a reduce of some layers' gradients
// (data-parallel) or outer gradients (a DiLoCo fragment) costs once it
// overlaps the compute that does not need it.
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
// A reduce of a set S of layers (all of them for data-parallel, a fragment's
// for DiLoCo) is one R_l per layer of S, issued when W_l ends, in the order
// the gradients exist (R_L first). It crosses two links in series: the
// intra-site ring (occupancy intra x p_l / sum_S p) and then, when the group
// spans sites, the WAN ring (occupancy wan x p_l / sum_S p). Each link serves
// the reduces in issue order, one at a time (work-conserving: the last one
// ends when it would with the link shared equally among those in flight).
// The WAN route latency is a pipeline delay added to each R_l's end.
//
// Gating: R_l's result is needed by the forward F_l of step s + 1 + tau (tau
// = 0 for data-parallel and for DiLoCo without overlap; tau = overlap_steps
// otherwise), and by nothing else. A late R_l holds F_l and, the chips
// running one node at a time, everything after it: the stall is
//   max(0, max over l in S of end(R_l) - start(F_l of step s + 1 + tau))
// with start(F_l of step s + 1 + tau) = (1 + tau) compute + u sum_{j<l} p_j.
// A data-parallel step is compute + that stall with S = all layers, tau = 0:
// it ends when R_1 does. With one layer nothing overlaps: the step is compute
// + intra + wan + latency. Infinite bandwidth gives the compute time.
//
// Cost: O(|S|) per question; exposed() caches data-parallel steps per distinct
// (intra, wan, latency), so a run pays it once per network state.
#pragma once

#include <cstdint>
#include <map>
#include <tuple>
#include <vector>

#include "sim/core/time.h"

namespace goodsim::models::policy {

// What a reduce costs on an otherwise idle network.
struct ReduceCost {
  core::Duration intra;    // intra-site ring all-reduce of the reduced layers (link occupancy)
  core::Duration wan;      // WAN ring all-reduce of the reduced layers, without latency
  core::Duration latency;  // WAN route latency (zero within one site)
};

class LayerStepModel {
 public:
  // `layer_params`: parameter count of each layer, input to output; `compute`:
  // the step's compute time. REQUIRES: at least one layer, every count > 0,
  // compute > 0.
  LayerStepModel(const std::vector<double>& layer_params, core::Duration compute);

  // A data-parallel step's duration: compute + the stall of reducing every
  // layer with tau = 0 (not cached).
  core::Duration step_time(const ReduceCost& cost) const;
  // step_time(cost) - compute: the communication the backward pass cannot
  // hide. Cached per distinct cost (the cache is cleared when it grows past
  // kMaxCached entries, which bounds its memory).
  core::Duration exposed(const ReduceCost& cost);
  // The stall of reducing the layers `layers` (0-based, input to output,
  // distinct) issued in one step, whose results gate the forward `tau` steps
  // after the next one; `cost` is the whole reduce of those layers.
  // REQUIRES: every index < layers().
  core::Duration exchange_delay(const std::vector<uint32_t>& layers, const ReduceCost& cost,
                                uint64_t tau) const;

  size_t layers() const { return params_.size(); }
  core::Duration compute() const { return compute_; }
  size_t cached() const { return cache_.size(); }

  static constexpr size_t kMaxCached = 4096;

 private:
  // Stall in seconds for the layers flagged in `in` (indexed by layer).
  double delay_s(const std::vector<bool>& in, const ReduceCost& cost, uint64_t tau) const;

  std::vector<double> params_;   // p_l, input to output
  std::vector<double> release_;  // seconds into the step when W_l ends, by layer
  std::vector<double> forward_;  // seconds into a step when F_l starts, by layer
  core::Duration compute_;
  std::map<std::tuple<int64_t, int64_t, int64_t>, core::Duration> cache_;
};

}  // namespace goodsim::models::policy
