#include "sim/output/event_log.h"

#include <stdexcept>

namespace goodsim::output {
namespace {

// The marker line (under 100 bytes) fits in the room kept for it: the file never passes
// the cap.
constexpr uint64_t kMarkerRoom = 128;

void write_exact(std::FILE* f, const void* data, size_t size) {
  if (std::fwrite(data, 1, size, f) != size) {
    throw std::runtime_error("cannot write the temporary file of the event log");
  }
}

void read_exact(std::FILE* f, void* data, size_t size) {
  if (std::fread(data, 1, size, f) != size) {
    throw std::runtime_error("cannot read back the temporary file of the event log");
  }
}

}  // namespace

EventLog::EventLog(const std::filesystem::path& target, uint64_t max_bytes)
    : max_bytes_(max_bytes) {
  file_.emplace(target);
}

EventLog::EventLog(Spool, uint64_t max_bytes)
    : spool_(std::tmpfile()), max_bytes_(max_bytes) {
  if (!spool_) throw std::runtime_error("cannot create a temporary file for the event log");
}

void EventLog::record(core::SimTime t, std::string_view policy, std::string_view event,
                      const nlohmann::json& fields) {
  if (dropped_ > 0) {
    ++dropped_;
    return;
  }
  nlohmann::json line = {{"t", t.seconds_f()}, {"policy", policy}, {"event", event}};
  for (const auto& [key, value] : fields.items()) line[key] = value;
  put(t.seconds_f(), line.dump() + '\n');
}

void EventLog::put(double t, const std::string& text) {
  if (bytes_ + text.size() + kMarkerRoom > max_bytes_) return drop_from(t);
  bytes_ += text.size();
  if (!spool_) {
    file_->stream() << text;
    return;
  }
  const uint64_t size = text.size();
  write_exact(spool_.get(), &t, sizeof t);
  write_exact(spool_.get(), &size, sizeof size);
  write_exact(spool_.get(), text.data(), text.size());
}

void EventLog::drop_from(double t) {
  ++dropped_;
  first_dropped_t_ = t;
  if (spool_) return;
  const nlohmann::json marker = {{"truncated", true}, {"max_bytes", max_bytes_}, {"t", t}};
  file_->stream() << marker.dump() << '\n';
}

void EventLog::append(EventLog& spool) {
  std::FILE* f = spool.spool_.get();
  if (std::fflush(f) != 0 || std::fseek(f, 0, SEEK_SET) != 0) {
    throw std::runtime_error("cannot read back the temporary file of the event log");
  }
  std::string text;
  for (uint64_t done = 0; done < spool.bytes_;) {
    double t = 0;
    uint64_t size = 0;
    read_exact(f, &t, sizeof t);
    read_exact(f, &size, sizeof size);
    text.resize(size);
    read_exact(f, text.data(), size);
    done += size;
    if (dropped_ > 0) {
      ++dropped_;
    } else {
      put(t, text);
    }
  }
  if (spool.dropped_ == 0) return;
  if (dropped_ == 0) {
    drop_from(spool.first_dropped_t_);
    dropped_ += spool.dropped_ - 1;
  } else {
    dropped_ += spool.dropped_;
  }
}

}  // namespace goodsim::output
