#include "models/policy/fragment_transfer.h"

#include <numeric>
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

std::vector<std::vector<uint32_t>> FragmentTransfer::layers(const scenario::JobSpec& job,
                                                            uint32_t fragments) const {
  GOODSIM_CHECK(fragments >= 1);
  std::vector<std::vector<uint32_t>> out(fragments);
  const uint64_t n = job.layer_params.size();
  GOODSIM_CHECK(n == 0 || fragments <= n);
  for (uint64_t l = 0; l < n; ++l) {
    // Consecutive: l lies in fragment p when floor(p n / P) <= l < floor((p+1) n / P).
    const uint64_t p = layout == FragmentLayout::kStrided ? l % fragments
                                                          : ((l + 1) * fragments - 1) / n;
    out[p].push_back(static_cast<uint32_t>(l));
  }
  return out;
}

std::vector<double> FragmentTransfer::bytes(const scenario::JobSpec& job,
                                            uint32_t fragments) const {
  const double total = job.gradient_bytes * bits / 16.0;
  const std::vector<double>& params = job.layer_params;
  if (params.empty()) {
    GOODSIM_CHECK(fragments >= 1);
    return std::vector<double>(fragments, total / fragments);
  }
  const double sum = std::accumulate(params.begin(), params.end(), 0.0);
  std::vector<double> out;
  for (const auto& held : layers(job, fragments)) {
    double p = 0;
    for (uint32_t l : held) p += params[l];
    out.push_back(total * p / sum);
  }
  return out;
}

}  // namespace goodsim::models::policy
