#include "sim/output/event_log.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace goodsim::output {
namespace {

// The marker line (under 100 bytes) fits in the room kept for it: the file never passes
// the cap.
constexpr uint64_t kMarkerRoom = 128;

bool write_exact(std::FILE* f, const void* data, size_t size) {
  return std::fwrite(data, 1, size, f) == size;
}

bool read_exact(std::FILE* f, void* data, size_t size) {
  return std::fread(data, 1, size, f) == size;
}

// An unlinked temporary file in `dir`: only its descriptor names it.
std::FILE* anonymous_file(const std::filesystem::path& dir) {
  // mkstemp replaces the name's last six characters, which must be 'X'.
  std::string name = (dir / ".events-spool-").string() + std::string(6, 'X');
  const int fd = ::mkstemp(name.data());
  if (fd < 0) return nullptr;
  ::unlink(name.c_str());
  std::FILE* f = ::fdopen(fd, "w+b");
  if (f == nullptr) ::close(fd);
  return f;
}

}  // namespace

EventLog::EventLog(const std::filesystem::path& target, uint64_t max_bytes)
    : target_(target), max_bytes_(max_bytes) {
  file_.emplace(target);
}

EventLog::EventLog(Spool, const std::filesystem::path& target, uint64_t max_bytes)
    : target_(target),
      spool_(anonymous_file(target.has_parent_path() ? target.parent_path() : ".")),
      max_bytes_(max_bytes) {
  if (!spool_) spool_error();
}

void EventLog::spool_error() const {
  throw std::runtime_error(fmt::format("cannot write {} (the spool of a policy's events): {}",
                                       target_.string(),
                                       errno != 0 ? std::strerror(errno) : "write error"));
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
  std::FILE* f = spool_.get();
  if (!write_exact(f, &t, sizeof t) || !write_exact(f, &size, sizeof size) ||
      !write_exact(f, text.data(), text.size())) {
    spool_error();
  }
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
  if (std::fflush(f) != 0 || std::fseek(f, 0, SEEK_SET) != 0) spool.spool_error();
  std::string text;
  for (uint64_t done = 0; done < spool.bytes_;) {
    double t = 0;
    uint64_t size = 0;
    if (!read_exact(f, &t, sizeof t) || !read_exact(f, &size, sizeof size)) spool.spool_error();
    text.resize(size);
    if (!read_exact(f, text.data(), size)) spool.spool_error();
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
