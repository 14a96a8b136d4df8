#include "sim/output/atomic_file.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <string_view>

#include <stdexcept>
#include <system_error>

namespace goodsim::output {
namespace {

// True when `text` names a process id that no longer exists (a process killed while writing).
bool dead_process(std::string_view text) {
  pid_t pid = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), pid);
  if (ec != std::errc() || end != text.data() + text.size() || pid <= 0) return false;
  return ::kill(pid, 0) != 0 && errno == ESRCH;
}

// Removes the temporary files of `target` left by processes that were killed mid-write.
void remove_stale_temps(const std::filesystem::path& target, const std::string& prefix) {
  std::error_code ec;
  const std::filesystem::path dir = target.has_parent_path() ? target.parent_path() : ".";
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.starts_with(prefix) && dead_process(std::string_view(name).substr(prefix.size()))) {
      std::error_code ignored;
      std::filesystem::remove(it->path(), ignored);
    }
  }
}

}  // namespace

AtomicFile::AtomicFile(std::filesystem::path target) : target_(std::move(target)) {
  const std::string prefix = "." + target_.filename().string() + ".tmp-";
  remove_stale_temps(target_, prefix);
  temp_ = target_.parent_path() / (prefix + std::to_string(::getpid()));
  out_.open(temp_, std::ios::binary | std::ios::trunc);
  if (!out_) throw std::runtime_error("cannot write " + temp_.string());
}

AtomicFile::~AtomicFile() {
  if (committed_) return;
  out_.close();
  std::error_code ec;
  std::filesystem::remove(temp_, ec);
}

void AtomicFile::commit() {
  out_.flush();
  if (!out_) throw std::runtime_error("write error on " + temp_.string());
  out_.close();
  std::error_code ec;
  std::filesystem::rename(temp_, target_, ec);
  if (ec) throw std::runtime_error("cannot rename " + temp_.string() + ": " + ec.message());
  committed_ = true;
}

void write_file_atomically(const std::filesystem::path& target, const std::string& content) {
  AtomicFile f(target);
  f.stream() << content;
  f.commit();
}

}  // namespace goodsim::output
