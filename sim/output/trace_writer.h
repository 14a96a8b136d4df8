// A timeline of a run in the Chrome trace-event JSON format, which
// ui.perfetto.dev and chrome://tracing open (gzip-compressed when the target
// ends in ".gz"; both tools read that directly).
//
// Each policy is a process; its tracks (threads) are the job or each learner,
// the syncer and the chaos timeline. A track's state (training, down,
// reconfigure, ...) is a sequence of complete ("X") spans; counters ("C")
// carry healthy chips and goodput over time. Events that every policy would
// repeat (the cluster's failures and repairs, the same under common random
// numbers) go once to a shared track (see SharedCursor).
//
// Size is bounded and fair:
// - Budget: `max_records` spans and instants in all, split evenly between
//   `processes`; each process's share is paced over simulated time (by time t
//   it may have written share x t / horizon + kSlack), so a busy policy cannot
//   starve another and every policy has records until the end of its run.
// - Spans over the pace are not dropped but coalesced: the track's following
//   spans are merged into one span named after the state that took most of
//   the time, "<state> (coalesced)", whose args give the seconds per state,
//   until the pace allows a record again. The track stays continuous.
// - Dense point events: per stream (process, track, name) and time bucket
//   (a round duration near horizon / kBuckets), at most
//   max(kSparse, share / (2 x kBuckets)) events are written as instants
//   (half a process's share spread over the buckets); a denser bucket becomes
//   one counter sample at the
//   bucket's start, "<name> per <bucket>", with the count and the mean of each
//   `tally` field, and the counter returns to 0 after the last dense bucket.
//   Instants of sparse buckets over the pace are dropped (counted by name).
// - Counters of the regular samples (one per sample interval) are always kept.
// Records may exceed a process's share by one coalesced span per track plus
// kSlack. The file's metadata says what was coalesced, tallied or dropped.
// Written to a temporary file and renamed by commit(), like every output.
// Not thread-safe: one run (its policies one after the other) per writer.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/core/time.h"
#include "sim/output/atomic_file.h"
#include "sim/output/gzip_stream.h"

namespace goodsim::output {

struct TraceOptions {
  uint64_t max_records = 1'000'000;  // spans and instants of all processes together
  uint32_t processes = 1;            // processes sharing the budget (policies + shared ones)
  core::Duration horizon = core::Duration::days(1);  // the run's horizon: paces the budget
};

// Position of one run in a shared track (TraceWriter::shared_cursor).
struct SharedCursor {
  std::string key;     // the shared track
  uint32_t owner = 0;  // the process offering events
  std::string track;   // the track's name, for the owner's own track after a divergence
  size_t next = 0;     // index of the next event in the shared sequence
  uint32_t own_tid = 0;  // the owner's own track once its sequence diverged; 0 before
};

class TraceWriter {
 public:
  static constexpr uint64_t kSlack = 16;     // records every process may write at any time
  static constexpr uint64_t kSparse = 8;     // point events per bucket always written as instants
  static constexpr int64_t kBuckets = 1000;  // target number of buckets over the horizon

  explicit TraceWriter(const std::filesystem::path& target, TraceOptions options = {});

  // A new process (a policy) and a new track in it; ids are dense from 1.
  // Viewers order processes by `sort_index` (default: the id).
  uint32_t process(std::string_view name, std::optional<int64_t> sort_index = std::nullopt);
  uint32_t track(uint32_t pid, std::string_view name);
  // Ends the track's current span at `t` and starts `state`.
  void state(uint32_t pid, uint32_t tid, std::string_view state, core::SimTime t);
  // A point event (see "Dense point events" above); `tally` is an object of
  // numeric fields averaged per dense bucket (empty: only the count).
  void instant(uint32_t pid, uint32_t tid, std::string_view name, core::SimTime t,
               const nlohmann::json& args, const nlohmann::json& tally = nlohmann::json::object());
  void counter(uint32_t pid, std::string_view name, core::SimTime t, double value);

  // A cursor of process `owner` on the shared track `track` of the process
  // named `process` (created by the first call). Events offered through the
  // cursor, in order, are written once: by the first run that reaches them.
  // A run whose sequence departs from the shared one (its history depends on
  // its policy) writes its events from there on to its own track "`track`
  // (own history)". `key` identifies an event (time, target, kind).
  SharedCursor shared_cursor(uint32_t owner, std::string_view process, std::string_view track);
  void shared_instant(SharedCursor& cursor, uint64_t key, std::string_view name, core::SimTime t,
                      const nlohmann::json& args);

  // Ends every open span of process `pid` at `end` and writes what it holds back.
  void close_process(uint32_t pid, core::SimTime end);
  // Closes every process at the horizon (a no-op for closed ones), writes the
  // metadata and renames the file into place.
  void commit();

  uint64_t written() const { return written_; }
  uint64_t dropped() const { return dropped_total_; }
  core::Duration bucket() const { return bucket_; }

 private:
  struct Coalesced {
    core::SimTime since, until;
    uint64_t spans = 0;
    std::vector<std::pair<std::string, double>> seconds;  // per state, in first-seen order
  };
  struct Track {
    std::optional<std::pair<std::string, core::SimTime>> open;  // state, since
    std::optional<Coalesced> coalesced;
  };
  struct Stream {  // point events of one (pid, tid, name) in the current bucket
    int64_t bucket = -1;
    uint64_t count = 0;
    std::vector<std::pair<core::SimTime, nlohmann::json>> held;  // while sparse
    std::vector<std::pair<std::string, double>> sums;            // tally fields
    std::optional<core::SimTime> zero_at;  // end of the last dense bucket, counter not yet 0
  };
  using StreamKey = std::pair<std::pair<uint32_t, uint32_t>, std::string>;
  struct Shared {
    uint32_t pid = 0, tid = 0;
    std::vector<uint64_t> keys;
  };

  bool paced(uint32_t pid, core::SimTime t);
  void emit(const nlohmann::json& event);
  void end_span(uint32_t pid, uint32_t tid, core::SimTime t);
  void emit_span(uint32_t pid, uint32_t tid, std::string_view name, core::SimTime since,
                 core::SimTime until, const nlohmann::json& args);
  void flush_coalesced(uint32_t pid, uint32_t tid, Track& track);
  void flush_stream(const StreamKey& key, Stream& s);
  void emit_tally(const StreamKey& key, const Stream& s, core::SimTime at, bool zero);
  core::SimTime bucket_start(int64_t b) const;

  AtomicFile file_;
  std::unique_ptr<GzipStream> gzip_;
  std::ostream* out_;
  TraceOptions options_;
  core::Duration bucket_;
  std::string bucket_label_;
  uint64_t share_;
  uint64_t written_ = 0;
  uint64_t dropped_total_ = 0;
  uint64_t coalesced_spans_ = 0;
  uint64_t dense_buckets_ = 0;
  bool first_ = true;
  std::vector<uint64_t> used_;  // records per process (index pid - 1)
  std::map<uint32_t, uint32_t> next_tid_;
  std::map<std::pair<uint32_t, uint32_t>, Track> tracks_;
  std::map<StreamKey, Stream> streams_;
  std::map<std::string, Shared, std::less<>> shared_;
  std::map<std::string, uint64_t, std::less<>> dropped_;
};

}  // namespace goodsim::output
