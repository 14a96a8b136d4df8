// events.jsonl: an optional log of what happened, one JSON object per line:
// {"t": seconds, "policy": name, "event": kind, ...fields}. Streamed to a
// temporary file and renamed into place by commit(), like every output.
#pragma once

#include <filesystem>
#include <memory>
#include <string_view>

#include <nlohmann/json.hpp>

#include "sim/core/time.h"
#include "sim/output/atomic_file.h"

namespace goodsim::output {

class EventLog {
 public:
  explicit EventLog(const std::filesystem::path& target);
  // Appends one line. `fields` must be an object (may be empty).
  void record(core::SimTime t, std::string_view policy, std::string_view event,
              const nlohmann::json& fields);
  void commit() { file_.commit(); }

 private:
  AtomicFile file_;
};

}  // namespace goodsim::output
