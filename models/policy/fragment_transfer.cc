#include "models/policy/fragment_transfer.h"

#include <string>

#include "sim/core/check.h"
#include "models/enum_choice.h"

namespace goodsim::models::policy {

FragmentTransfer FragmentTransfer::from_json(scenario::ObjectReader& r, const ParseContext& ctx,
                                             uint32_t fragments) {
  FragmentTransfer t;
  t.bits = static_cast<uint32_t>(r.count("transfer_bits", 16, "bits per value of a fragment "
                                         "exchange: 16, 8 or 4 (quantized transfers)", 4, 16));
  t.layout = read_enum(r, "fragment_layers",
                       {{"consecutive", FragmentLayout::kConsecutive},
                        {"strided", FragmentLayout::kStrided}},
                       t.layout,
                       "with job.layers: a fragment is a run of consecutive layers, or every "
                       "P-th layer");
  t.late = read_enum(r, "late_fragments",
                     {{"wait", LateFragments::kWait}, {"skip", LateFragments::kSkip}}, t.late,
                     "a learner at a sync point whose merged fragment has not arrived: "
                     "\"wait\" for it (sync_wait) or \"skip\" it (train on, apply it later)");
  if (r.describing()) return t;
  if (t.bits != 16 && t.bits != 8 && t.bits != 4) {
    r.fail("transfer_bits", "expected 16, 8 or 4, got " + std::to_string(t.bits));
  }
  const size_t layers = ctx.job != nullptr ? ctx.job->layer_params.size() : 0;
  if (layers > 0 && fragments > layers) {
    r.fail("fragments", "fragments (" + std::to_string(fragments) + ") must not exceed " +
                            "job.layers (" + std::to_string(layers) + ")");
  }
  return t;
}

std::vector<double> FragmentTransfer::bytes(const scenario::JobSpec& job,
                                            uint32_t fragments) const {
  GOODSIM_CHECK(fragments >= 1);
  const double total = job.gradient_bytes * bits / 16.0;
  const std::vector<double>& layers = job.layer_params;
  if (layers.empty()) return std::vector<double>(fragments, total / fragments);
  GOODSIM_CHECK(fragments <= layers.size());
  std::vector<double> params(fragments, 0.0);
  double sum = 0;
  const uint64_t n = layers.size();
  for (uint64_t l = 0; l < n; ++l) {
    // Consecutive: l lies in fragment p when floor(p n / P) <= l < floor((p+1) n / P).
    const uint64_t p = layout == FragmentLayout::kStrided ? l % fragments
                                                          : ((l + 1) * fragments - 1) / n;
    params[p] += layers[l];
    sum += layers[l];
  }
  for (double& b : params) b = total * b / sum;
  return params;
}

}  // namespace goodsim::models::policy
