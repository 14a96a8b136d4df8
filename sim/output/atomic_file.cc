#include "sim/output/atomic_file.h"

#include <signal.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <string_view>

#include <stdexcept>
#include <system_error>

#include <fmt/format.h>

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

// The temporary files of live AtomicFiles, for the signal handler, which may only make
// async-signal-safe calls: a fixed table of paths, each slot claimed by compare-and-swap.
constexpr size_t kTempSlots = 64;
constexpr size_t kTempPathMax = 1024;
constexpr int kSlotFree = 0, kSlotBusy = 1, kSlotLive = 2;
struct TempSlot {
  std::atomic<int> state{kSlotFree};
  char path[kTempPathMax] = {};
};
std::array<TempSlot, kTempSlots> live_temps;

int register_temp(const std::filesystem::path& temp) {
  const std::string& text = temp.native();
  if (text.size() >= kTempPathMax) return -1;
  for (size_t i = 0; i < kTempSlots; ++i) {
    int expected = kSlotFree;
    if (!live_temps[i].state.compare_exchange_strong(expected, kSlotBusy)) continue;
    std::memcpy(live_temps[i].path, text.c_str(), text.size() + 1);
    live_temps[i].state.store(kSlotLive);
    return static_cast<int>(i);
  }
  return -1;
}

void unregister_temp(int slot) {
  if (slot >= 0) live_temps[static_cast<size_t>(slot)].state.store(kSlotFree);
}

// "N" into `out` (async-signal-safe); returns the characters written.
size_t put_number(char* out, unsigned n) {
  char digits[12];
  size_t k = 0;
  do {
    digits[k++] = static_cast<char>('0' + n % 10);
    n /= 10;
  } while (n > 0);
  for (size_t i = 0; i < k; ++i) out[i] = digits[k - 1 - i];
  return k;
}

void append(char* buffer, size_t& used, const char* text) {
  const size_t n = std::strlen(text);
  std::memcpy(buffer + used, text, n);
  used += n;
}

extern "C" void remove_temps_and_end(int signal) {
  unsigned removed = 0;
  for (TempSlot& slot : live_temps) {
    if (slot.state.load() == kSlotLive && ::unlink(slot.path) == 0) ++removed;
  }
  char message[128];
  size_t used = 0;
  append(message, used, signal == SIGINT ? "\ngoodsim: interrupted (SIGINT)"
                                         : "\ngoodsim: terminated (SIGTERM)");
  append(message, used, "; removed ");
  used += put_number(message + used, removed);
  append(message, used, removed == 1 ? " temporary file\n" : " temporary files\n");
  [[maybe_unused]] const ssize_t ignored = ::write(STDERR_FILENO, message, used);
  ::signal(signal, SIG_DFL);
  ::raise(signal);
}

}  // namespace

void install_interrupt_cleanup() {
  struct sigaction action = {};
  action.sa_handler = remove_temps_and_end;
  sigemptyset(&action.sa_mask);
  sigaddset(&action.sa_mask, SIGINT);
  sigaddset(&action.sa_mask, SIGTERM);
  ::sigaction(SIGINT, &action, nullptr);
  ::sigaction(SIGTERM, &action, nullptr);
}

AtomicFile::AtomicFile(std::filesystem::path target) : target_(std::move(target)) {
  const std::string prefix = "." + target_.filename().string() + ".tmp-";
  remove_stale_temps(target_, prefix);
  temp_ = target_.parent_path() / (prefix + std::to_string(::getpid()));
  slot_ = register_temp(temp_);
  out_.open(temp_, std::ios::binary | std::ios::trunc);
  if (!out_) {
    unregister_temp(slot_);
    throw std::runtime_error("cannot write " + temp_.string());
  }
}

AtomicFile::~AtomicFile() {
  if (committed_) return;
  out_.close();
  std::error_code ec;
  std::filesystem::remove(temp_, ec);
  unregister_temp(slot_);
}

void AtomicFile::commit() {
  // Both the last writes and the close can fail (a full disk): either is an error naming
  // the output, and the temporary file is removed by the destructor.
  errno = 0;
  out_.flush();
  const bool written = static_cast<bool>(out_);
  if (written) out_.close();
  if (!written || out_.fail()) {
    throw std::runtime_error(fmt::format("cannot write {}: {}", target_.string(),
                                         errno != 0 ? std::strerror(errno) : "write error"));
  }
  std::error_code ec;
  std::filesystem::rename(temp_, target_, ec);
  if (ec) throw std::runtime_error("cannot rename " + temp_.string() + ": " + ec.message());
  committed_ = true;
  unregister_temp(slot_);
}

void write_file_atomically(const std::filesystem::path& target, const std::string& content) {
  AtomicFile f(target);
  f.stream() << content;
  f.commit();
}

}  // namespace goodsim::output
