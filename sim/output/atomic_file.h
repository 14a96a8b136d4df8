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
};

// Writes `content` to `target` atomically.
void write_file_atomically(const std::filesystem::path& target, const std::string& content);

}  // namespace goodsim::output
