// libFuzzer target: the CSV failure-trace parser (models/failure/trace_replay.h).
//
// Input: the bytes of a trace file, parsed against a fixed two-site cluster. Every input
// must give a trace or a ScenarioError; a parsed trace must only name units of the cluster
// and causes that are valid UTF-8 (they are written to JSON outputs).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>

#include "models/failure/trace_replay.h"
#include "sim/cluster/layout.h"
#include "sim/scenario/error.h"
#include "sim/scenario/utf8.h"

namespace {

void require(bool ok) {
  if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const goodsim::cluster::Layout layout(4, 2, {{"east", 3}, {"west", 2}}, 1);
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  try {
    const goodsim::models::failure::Trace trace =
        goodsim::models::failure::parse_trace(in, "fuzz.csv", layout);
    for (const auto& o : trace.outages) {
      require(o.id < layout.count(o.domain));
      require(o.cause < trace.causes.size());
    }
    for (const std::string& cause : trace.causes) require(goodsim::scenario::is_valid_utf8(cause));
  } catch (const goodsim::scenario::ScenarioError&) {
  }
  return 0;
}
