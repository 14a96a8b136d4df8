// A timeline of a run in the Chrome trace-event JSON format, which
// ui.perfetto.dev and chrome://tracing open.
//
// Each policy is a process; its tracks (threads) are the job or each learner,
// plus a "cluster" track for failure and repair instants. A track's state
// (training, down, reconfigure, ...) is a sequence of complete ("X") spans;
// counters ("C") carry healthy chips and goodput over time.
//
// Size is bounded: after `max_events` spans and instants, further ones are not
// written but counted per name; counters (one per sample) are always kept.
// The file's metadata says whether and what was dropped. Written to a
// temporary file and renamed by commit(), like every output.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/core/time.h"
#include "sim/output/atomic_file.h"

namespace goodsim::output {

class TraceWriter {
 public:
  explicit TraceWriter(const std::filesystem::path& target, uint64_t max_events = 1'000'000);

  // A new process (a policy) and a new track in it; ids are dense from 1.
  uint32_t process(std::string_view name);
  uint32_t track(uint32_t pid, std::string_view name);
  // Ends the track's current span at `t` and starts `state`.
  void state(uint32_t pid, uint32_t tid, std::string_view state, core::SimTime t);
  void instant(uint32_t pid, uint32_t tid, std::string_view name, core::SimTime t,
               const nlohmann::json& args);
  void counter(uint32_t pid, std::string_view name, core::SimTime t, double value);
  // Ends every open span of process `pid` at `end`.
  void close_process(uint32_t pid, core::SimTime end);
  void commit();

  uint64_t written() const { return written_; }
  uint64_t dropped() const { return dropped_total_; }

 private:
  struct OpenSpan {
    std::string name;
    core::SimTime since;
  };
  bool admit(std::string_view name);
  void emit(const nlohmann::json& event);
  void end_span(uint32_t pid, uint32_t tid, core::SimTime t);

  AtomicFile file_;
  uint64_t max_events_;
  uint64_t written_ = 0;
  uint64_t dropped_total_ = 0;
  bool first_ = true;
  uint32_t next_pid_ = 1;
  std::map<uint32_t, uint32_t> next_tid_;
  std::map<std::pair<uint32_t, uint32_t>, OpenSpan> open_;
  std::map<std::string, uint64_t, std::less<>> dropped_;
};

}  // namespace goodsim::output
