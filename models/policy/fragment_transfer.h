// How a DiLoCo-style policy ships its fragments over the network: which of
// the model's layers make up each fragment, and how many bits each value
// takes on the wire (quantized transfers).
//
// job.gradient_bytes is taken as 16-bit values, so a transfer of b bits per
// value moves gradient_bytes x b / 16 in all. Without job.layers the P
// fragments are equal shares of that. With job.layers each fragment carries
// the share of the parameters of its layers (layer l, counted from 0):
// - "consecutive": fragment p holds layers floor(p L / P) .. floor((p+1) L / P) - 1;
// - "strided": fragment p holds the layers l with l mod P == p.
//
// And what a learner does at a sync point (tau inner steps after it sent a
// fragment) when the merged fragment has not reached it yet (late_fragments):
// "wait" for it there (its chips sync_wait), or "skip" it (train on with its
// own copy and apply the merged fragment at a later sync point). The policies
// (diloco.h, decoupled_diloco_gate.h) implement the rule.
#pragma once

#include <cstdint>
#include <vector>

#include "models/parse_context.h"
#include "sim/scenario/reader.h"
#include "sim/scenario/scenario.h"

namespace goodsim::models::policy {

enum class FragmentLayout : uint8_t { kConsecutive, kStrided };
enum class LateFragments : uint8_t { kWait, kSkip };

struct FragmentTransfer {
  uint32_t bits = 16;  // 16, 8 or 4
  FragmentLayout layout = FragmentLayout::kConsecutive;
  LateFragments late = LateFragments::kWait;

  bool wait() const { return late == LateFragments::kWait; }

  // Reads transfer_bits, fragment_layers and late_fragments. With the job known (ctx.job)
  // and job.layers set, rejects more fragments than layers (every fragment
  // holds at least one layer).
  static FragmentTransfer from_json(scenario::ObjectReader& r, const ParseContext& ctx,
                                    uint32_t fragments);

  // Bytes each of the `fragments` fragments moves per exchange (see above).
  // REQUIRES: fragments >= 1, and fragments <= layers when job.layers is set.
  std::vector<double> bytes(const scenario::JobSpec& job, uint32_t fragments) const;
  // The layers (0-based, input to output) each fragment holds; every list is
  // empty without job.layers. REQUIRES: as bytes().
  std::vector<std::vector<uint32_t>> layers(const scenario::JobSpec& job, uint32_t fragments) const;
};

}  // namespace goodsim::models::policy
