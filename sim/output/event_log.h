// events.jsonl: an optional log of what happened, one JSON object per line:
// {"t": seconds, "policy": name, "event": kind, ...fields}. Streamed to a
// temporary file and renamed into place by commit(), like every output.
//
// The log holds at most `max_bytes` bytes (run --max-output): the line that would
// pass the cap is replaced by a last line {"truncated": true, "max_bytes": N,
// "t": seconds}, and later records are dropped (counted), so the file stays valid
// JSONL and says that it is incomplete. REQUIRES: max_bytes >= 128.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string_view>

#include <nlohmann/json.hpp>

#include "sim/core/time.h"
#include "sim/output/atomic_file.h"

namespace goodsim::output {

class EventLog {
 public:
  // Default cap: 1 GiB.
  static constexpr uint64_t kDefaultMaxBytes = uint64_t{1} << 30;
  explicit EventLog(const std::filesystem::path& target, uint64_t max_bytes = kDefaultMaxBytes);
  // Appends one line. `fields` must be an object (may be empty).
  void record(core::SimTime t, std::string_view policy, std::string_view event,
              const nlohmann::json& fields);
  void commit() { file_.commit(); }
  // True once a record was dropped for the cap; dropped() counts them.
  bool truncated() const { return dropped_ > 0; }
  uint64_t dropped() const { return dropped_; }
  uint64_t max_bytes() const { return max_bytes_; }

 private:
  AtomicFile file_;
  uint64_t max_bytes_;
  uint64_t bytes_ = 0;
  uint64_t dropped_ = 0;
};

}  // namespace goodsim::output
