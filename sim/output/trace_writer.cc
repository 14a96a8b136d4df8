#include "sim/output/trace_writer.h"

#include <algorithm>
#include <array>

namespace goodsim::output {
namespace {

using nlohmann::json;

double micros(core::SimTime t) { return static_cast<double>(t.ns()) / 1000.0; }

struct RoundDuration {
  core::Duration d;
  const char* label;
};

// Bucket widths a reader recognises at a glance, smallest first.
const std::array<RoundDuration, 18>& round_durations() {
  using core::Duration;
  static const std::array<RoundDuration, 18> kRound = {{
      {Duration::micros(1), "1us"},   {Duration::micros(10), "10us"},
      {Duration::micros(100), "100us"}, {Duration::millis(1), "1ms"},
      {Duration::millis(10), "10ms"}, {Duration::millis(100), "100ms"},
      {Duration::seconds(1), "1s"},   {Duration::seconds(10), "10s"},
      {Duration::minutes(1), "1m"},   {Duration::minutes(5), "5m"},
      {Duration::minutes(15), "15m"}, {Duration::hours(1), "1h"},
      {Duration::hours(6), "6h"},     {Duration::days(1), "1d"},
      {Duration::days(7), "7d"},      {Duration::days(30), "30d"},
      {Duration::days(365), "365d"},  {Duration::days(3650), "3650d"},
  }};
  return kRound;
}

// The smallest round width that splits `horizon` into at most `buckets` buckets.
RoundDuration bucket_width(core::Duration horizon, int64_t buckets) {
  for (const RoundDuration& r : round_durations()) {
    if (r.d * buckets >= horizon) return r;
  }
  return round_durations().back();
}

// Point events of one stream a bucket may hold as instants: kSparse, or more
// when a process's share allows (half of it spread over the buckets; the
// other half is left to spans).
uint64_t sparse_limit(uint64_t share) {
  return std::max<uint64_t>(TraceWriter::kSparse, share / (2 * TraceWriter::kBuckets));
}

void add_to(std::vector<std::pair<std::string, double>>& sums, const std::string& key,
            double value) {
  for (auto& [k, v] : sums) {
    if (k == key) {
      v += value;
      return;
    }
  }
  sums.emplace_back(key, value);
}

}  // namespace

TraceWriter::TraceWriter(const std::filesystem::path& target, TraceOptions options)
    : file_(target), out_(&file_.stream()), options_(options) {
  if (target.extension() == ".gz") {
    gzip_ = std::make_unique<GzipStream>(file_.stream());
    out_ = gzip_.get();
  }
  options_.processes = std::max<uint32_t>(options_.processes, 1);
  options_.horizon = std::max(options_.horizon, core::Duration::nanos(1));
  const RoundDuration width = bucket_width(options_.horizon, kBuckets);
  bucket_ = width.d;
  bucket_label_ = width.label;
  share_ = options_.max_records / options_.processes;
  *out_ << "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n";
}

void TraceWriter::emit(const json& event) {
  if (!first_) *out_ << ",\n";
  first_ = false;
  *out_ << event.dump();
}

bool TraceWriter::paced(uint32_t pid, core::SimTime t) {
  const double elapsed = std::clamp(t.seconds_f() / options_.horizon.seconds_f(), 0.0, 1.0);
  const double allowance = static_cast<double>(share_) * elapsed + static_cast<double>(kSlack);
  uint64_t& used = used_.at(pid - 1);
  if (static_cast<double>(used) >= allowance) return false;
  ++used;
  ++written_;
  return true;
}

uint32_t TraceWriter::process(std::string_view name, std::optional<int64_t> sort_index) {
  const auto pid = static_cast<uint32_t>(used_.size() + 1);
  used_.push_back(0);
  emit({{"ph", "M"}, {"name", "process_name"}, {"pid", pid}, {"args", {{"name", name}}}});
  emit({{"ph", "M"}, {"name", "process_sort_index"}, {"pid", pid},
        {"args", {{"sort_index", sort_index.value_or(pid)}}}});
  return pid;
}

uint32_t TraceWriter::track(uint32_t pid, std::string_view name) {
  const uint32_t tid = ++next_tid_[pid];
  emit({{"ph", "M"}, {"name", "thread_name"}, {"pid", pid}, {"tid", tid}, {"args", {{"name", name}}}});
  emit({{"ph", "M"}, {"name", "thread_sort_index"}, {"pid", pid}, {"tid", tid},
        {"args", {{"sort_index", tid}}}});
  return tid;
}

void TraceWriter::emit_span(uint32_t pid, uint32_t tid, std::string_view name,
                            core::SimTime since, core::SimTime until, const json& args) {
  json e = {{"ph", "X"}, {"name", name}, {"pid", pid}, {"tid", tid}, {"ts", micros(since)},
            {"dur", micros(until) - micros(since)}};
  if (!args.empty()) e["args"] = args;
  emit(e);
}

void TraceWriter::flush_coalesced(uint32_t pid, uint32_t tid, Track& track) {
  if (!track.coalesced) return;
  const Coalesced& c = *track.coalesced;
  const auto longest = std::max_element(c.seconds.begin(), c.seconds.end(),
                                        [](const auto& a, const auto& b) { return a.second < b.second; });
  json args = {{"spans", c.spans}};
  for (const auto& [state, s] : c.seconds) args[state + " s"] = s;
  emit_span(pid, tid, longest->first + " (coalesced)", c.since, c.until, args);
  track.coalesced.reset();
}

void TraceWriter::end_span(uint32_t pid, uint32_t tid, core::SimTime t) {
  Track& track = tracks_[{pid, tid}];
  if (!track.open) return;
  const auto [name, since] = *track.open;
  track.open.reset();
  if (t <= since) return;
  if (!track.coalesced && paced(pid, t)) {
    emit_span(pid, tid, name, since, t, json::object());
    return;
  }
  if (!track.coalesced) track.coalesced = Coalesced{since, t, 0, {}};
  Coalesced& c = *track.coalesced;
  c.until = t;
  ++c.spans;
  ++coalesced_spans_;
  add_to(c.seconds, name, (t - since).seconds_f());
  if (paced(pid, t)) flush_coalesced(pid, tid, track);
}

void TraceWriter::state(uint32_t pid, uint32_t tid, std::string_view state, core::SimTime t) {
  Track& track = tracks_[{pid, tid}];
  if (track.open && track.open->first == state) return;
  end_span(pid, tid, t);
  tracks_[{pid, tid}].open.emplace(std::string(state), t);
}

core::SimTime TraceWriter::bucket_start(int64_t b) const {
  return core::SimTime::zero() + bucket_ * b;
}

void TraceWriter::instant(uint32_t pid, uint32_t tid, std::string_view name, core::SimTime t,
                          const json& args, const json& tally) {
  const StreamKey key{{pid, tid}, std::string(name)};
  Stream& s = streams_[key];
  const int64_t b = t.ns() / bucket_.ns();
  if (b != s.bucket) {
    flush_stream(key, s);
    s.bucket = b;
  }
  ++s.count;
  for (auto it = tally.begin(); it != tally.end(); ++it) add_to(s.sums, it.key(), it->get<double>());
  if (s.count <= sparse_limit(share_)) {
    s.held.emplace_back(t, args);
  } else {
    s.held.clear();
  }
}

void TraceWriter::emit_tally(const StreamKey& key, const Stream& s, core::SimTime at, bool zero) {
  json args = {{"count", zero ? 0 : s.count}};
  for (const auto& [field, sum] : s.sums) {
    args[field + " (mean)"] = zero ? 0.0 : sum / static_cast<double>(s.count);
  }
  emit({{"ph", "C"}, {"name", key.second + " per " + bucket_label_}, {"pid", key.first.first},
        {"ts", micros(at)}, {"args", args}});
}

void TraceWriter::flush_stream(const StreamKey& key, Stream& s) {
  if (s.count == 0) return;
  const bool dense = s.count > sparse_limit(share_);
  if (s.zero_at && (!dense || *s.zero_at != bucket_start(s.bucket))) {
    emit_tally(key, s, *s.zero_at, true);
  }
  s.zero_at.reset();
  if (dense) {
    ++dense_buckets_;
    emit_tally(key, s, bucket_start(s.bucket), false);
    s.zero_at = bucket_start(s.bucket + 1);
  }
  const auto [pid, tid] = key.first;
  for (const auto& [t, args] : s.held) {
    if (paced(pid, t)) {
      emit({{"ph", "i"}, {"s", "t"}, {"name", key.second}, {"pid", pid}, {"tid", tid},
            {"ts", micros(t)}, {"args", args}});
    } else {
      ++dropped_total_;
      ++dropped_.try_emplace(key.second, 0).first->second;
    }
  }
  s.held.clear();
  s.count = 0;
  for (auto& sum : s.sums) sum.second = 0;
}

void TraceWriter::counter(uint32_t pid, std::string_view name, core::SimTime t, double value) {
  emit({{"ph", "C"}, {"name", name}, {"pid", pid}, {"ts", micros(t)}, {"args", {{"value", value}}}});
}

SharedCursor TraceWriter::shared_cursor(uint32_t owner, std::string_view process,
                                        std::string_view track) {
  std::string key = std::string(process) + "/" + std::string(track);
  auto it = shared_.find(key);
  if (it == shared_.end()) {
    Shared s;
    s.pid = this->process(process, 0);  // shown above the policies
    s.tid = this->track(s.pid, track);
    it = shared_.emplace(key, std::move(s)).first;
  }
  return SharedCursor{std::move(key), owner, std::string(track)};
}

void TraceWriter::shared_instant(SharedCursor& c, uint64_t key, std::string_view name,
                                 core::SimTime t, const json& args) {
  Shared& s = shared_.at(c.key);
  if (c.own_tid == 0 && c.next < s.keys.size()) {
    if (s.keys[c.next] == key) {
      ++c.next;
      return;
    }
    c.own_tid = track(c.owner, c.track + " (own history)");
  }
  if (c.own_tid != 0) {
    instant(c.owner, c.own_tid, name, t, args);
    return;
  }
  s.keys.push_back(key);
  ++c.next;
  instant(s.pid, s.tid, name, t, args);
}

void TraceWriter::close_process(uint32_t pid, core::SimTime end) {
  for (auto& [key, track] : tracks_) {
    if (key.first != pid) continue;
    end_span(pid, key.second, end);
    flush_coalesced(pid, key.second, track);
  }
  for (auto& [key, s] : streams_) {
    if (key.first.first != pid) continue;
    flush_stream(key, s);
    if (s.zero_at) emit_tally(key, s, std::min(*s.zero_at, end), true);
    s.zero_at.reset();
  }
}

void TraceWriter::commit() {
  // Shared tracks belong to no run, and a process may not have been closed:
  // what they still hold is written now, ending at the horizon.
  const core::SimTime end = core::SimTime::zero() + options_.horizon;
  for (uint32_t pid = 1; pid <= used_.size(); ++pid) close_process(pid, end);
  json meta = {{"generator", "goodsim"},
               {"records_written", written_},
               {"max_records", options_.max_records},
               {"records_per_process", share_},
               {"dense_bucket", bucket_label_},
               {"coalesced_spans", coalesced_spans_},
               {"dense_buckets", dense_buckets_},
               {"truncated", dropped_total_ > 0}};
  if (dropped_total_ > 0) {
    meta["dropped_instants"] = dropped_;
    meta["note"] = "instants over a process's paced budget were dropped (counted above); "
                   "spans were coalesced, never dropped; counters cover the whole run";
  }
  *out_ << "\n],\"metadata\":" << meta.dump() << "}\n";
  if (gzip_) gzip_->finish();
  file_.commit();
}

}  // namespace goodsim::output
