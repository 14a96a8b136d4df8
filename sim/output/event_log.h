// events.jsonl: an optional log of what happened, one JSON object per line:
// {"t": seconds, "policy": name, "event": kind, ...fields}. Streamed to a
// temporary file and renamed into place by commit(), like every output.
//
// The log holds at most `max_bytes` bytes (run --max-output): the line that would
// pass the cap is replaced by a last line {"truncated": true, "max_bytes": N,
// "t": seconds}, and later records are dropped (counted), so the file stays valid
// JSONL and says that it is incomplete. REQUIRES: max_bytes >= 128.
//
// A spool (EventLog(Spool{}, target, max_bytes)) holds the records of one policy run in
// an anonymous temporary file beside `target` (never in memory; unlinked at once, so it
// is gone when the spool is destroyed or the process killed), so
// that policies run in parallel can be logged and their records appended to the real
// log in policy order: append() writes exactly the lines, marker and drop count that
// recording the same calls directly into the log would have.
#pragma once

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "sim/core/time.h"
#include "sim/output/atomic_file.h"

namespace goodsim::output {

class EventLog {
 public:
  // Default cap: 1 GiB.
  static constexpr uint64_t kDefaultMaxBytes = uint64_t{1} << 30;
  struct Spool {};
  explicit EventLog(const std::filesystem::path& target, uint64_t max_bytes = kDefaultMaxBytes);
  // A spool for the log written to `target`, with its cap. Throws std::runtime_error
  // naming `target` when the temporary file cannot be created or written.
  EventLog(Spool, const std::filesystem::path& target, uint64_t max_bytes);
  // Appends one line. `fields` must be an object (may be empty).
  void record(core::SimTime t, std::string_view policy, std::string_view event,
              const nlohmann::json& fields);
  // Appends the records of `spool`, in order, as if they had been recorded here.
  // REQUIRES: this log is not a spool; `spool` is one, with the same cap.
  void append(EventLog& spool);
  // REQUIRES: not a spool.
  void commit() { file_->commit(); }
  // True once a record was dropped for the cap; dropped() counts them.
  bool truncated() const { return dropped_ > 0; }
  uint64_t dropped() const { return dropped_; }
  uint64_t max_bytes() const { return max_bytes_; }
  const std::filesystem::path& target() const { return target_; }

 private:
  struct CloseFile {
    void operator()(std::FILE* f) const { std::fclose(f); }
  };
  // Writes one line (or the marker, when it would pass the cap).
  void put(double t, const std::string& text);
  void drop_from(double t);

  [[noreturn]] void spool_error() const;

  std::filesystem::path target_;
  std::optional<AtomicFile> file_;              // the log
  std::unique_ptr<std::FILE, CloseFile> spool_;  // or the spool's records: t, size, text
  uint64_t max_bytes_;
  uint64_t bytes_ = 0;
  uint64_t dropped_ = 0;
  double first_dropped_t_ = 0;  // the time of the first dropped record
};

}  // namespace goodsim::output
