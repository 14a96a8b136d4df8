#include "sim/output/trace_writer.h"

namespace goodsim::output {
namespace {
double micros(core::SimTime t) { return static_cast<double>(t.ns()) / 1000.0; }
}  // namespace

TraceWriter::TraceWriter(const std::filesystem::path& target, uint64_t max_events)
    : file_(target), max_events_(max_events) {
  file_.stream() << "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n";
}

void TraceWriter::emit(const nlohmann::json& event) {
  if (!first_) file_.stream() << ",\n";
  first_ = false;
  file_.stream() << event.dump();
}

bool TraceWriter::admit(std::string_view name) {
  if (written_ < max_events_) {
    ++written_;
    return true;
  }
  ++dropped_total_;
  auto it = dropped_.find(name);
  if (it == dropped_.end()) it = dropped_.emplace(std::string(name), 0).first;
  ++it->second;
  return false;
}

uint32_t TraceWriter::process(std::string_view name) {
  const uint32_t pid = next_pid_++;
  emit({{"ph", "M"}, {"name", "process_name"}, {"pid", pid}, {"args", {{"name", name}}}});
  emit({{"ph", "M"}, {"name", "process_sort_index"}, {"pid", pid}, {"args", {{"sort_index", pid}}}});
  return pid;
}

uint32_t TraceWriter::track(uint32_t pid, std::string_view name) {
  const uint32_t tid = ++next_tid_[pid];
  emit({{"ph", "M"}, {"name", "thread_name"}, {"pid", pid}, {"tid", tid}, {"args", {{"name", name}}}});
  emit({{"ph", "M"}, {"name", "thread_sort_index"}, {"pid", pid}, {"tid", tid},
        {"args", {{"sort_index", tid}}}});
  return tid;
}

void TraceWriter::end_span(uint32_t pid, uint32_t tid, core::SimTime t) {
  auto it = open_.find({pid, tid});
  if (it == open_.end()) return;
  const OpenSpan span = it->second;
  open_.erase(it);
  if (t <= span.since || !admit(span.name)) return;
  emit({{"ph", "X"}, {"name", span.name}, {"pid", pid}, {"tid", tid}, {"ts", micros(span.since)},
        {"dur", micros(t) - micros(span.since)}});
}

void TraceWriter::state(uint32_t pid, uint32_t tid, std::string_view state, core::SimTime t) {
  auto it = open_.find({pid, tid});
  if (it != open_.end() && it->second.name == state) return;
  end_span(pid, tid, t);
  open_.emplace(std::make_pair(pid, tid), OpenSpan{std::string(state), t});
}

void TraceWriter::instant(uint32_t pid, uint32_t tid, std::string_view name, core::SimTime t,
                          const nlohmann::json& args) {
  if (!admit(name)) return;
  emit({{"ph", "i"}, {"s", "t"}, {"name", name}, {"pid", pid}, {"tid", tid}, {"ts", micros(t)},
        {"args", args}});
}

void TraceWriter::counter(uint32_t pid, std::string_view name, core::SimTime t, double value) {
  emit({{"ph", "C"}, {"name", name}, {"pid", pid}, {"ts", micros(t)}, {"args", {{"value", value}}}});
}

void TraceWriter::close_process(uint32_t pid, core::SimTime end) {
  std::vector<uint32_t> tids;
  for (const auto& [key, span] : open_) {
    if (key.first == pid) tids.push_back(key.second);
  }
  for (uint32_t tid : tids) end_span(pid, tid, end);
}

void TraceWriter::commit() {
  nlohmann::json meta = {{"generator", "goodsim"},
                         {"events_written", written_},
                         {"truncated", dropped_total_ > 0},
                         {"max_events", max_events_}};
  if (dropped_total_ > 0) {
    meta["dropped_events"] = dropped_;
    meta["note"] = "the event budget was reached: later spans and instants were dropped "
                   "(counted above); counters cover the whole run";
  }
  file_.stream() << "\n],\"metadata\":" << meta.dump() << "}\n";
  file_.commit();
}

}  // namespace goodsim::output
