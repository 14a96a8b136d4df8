// Atomic output files: content is written to a temporary file in the target's
// directory and renamed over the target only when complete, so a killed run
// never leaves a half-written output behind.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>

namespace goodsim::output {

// Streams into "<dir>/.<name>.tmp-<pid>"; commit() flushes, checks for write
// errors and renames onto the target. Destroyed without commit(), it removes
// the temporary file. Opening also removes the target's temporary files whose
// <pid> is no longer a running process (left by a killed run). Throws
// std::runtime_error on I/O errors.
class AtomicFile {
 public:
  explicit AtomicFile(std::filesystem::path target);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  std::ostream& stream() { return out_; }
  void commit();

 private:
  std::filesystem::path target_;
  std::filesystem::path temp_;
  std::ofstream out_;
  bool committed_ = false;
  int slot_ = -1;  // in the table of live temporary files (install_interrupt_cleanup)
};

// Makes SIGINT and SIGTERM remove the temporary files of every AtomicFile alive in the
// process (up to 64 at a time; any beyond are removed by the next run's stale-file
// cleanup), say so on standard error ("goodsim: interrupted; removed 2 temporary files"),
// then end the process by the same signal. Call once, from main(). Signals are
// process-wide, so the table of live temporary files is the one process-wide table of
// goodsim; it is filled and read without locks or allocation.
void install_interrupt_cleanup();

// Writes `content` to `target` atomically.
void write_file_atomically(const std::filesystem::path& target, const std::string& content);

}  // namespace goodsim::output
