#include "sim/output/atomic_file.h"

#include <unistd.h>

#include <stdexcept>
#include <system_error>

namespace goodsim::output {

AtomicFile::AtomicFile(std::filesystem::path target) : target_(std::move(target)) {
  const std::string name = "." + target_.filename().string() + ".tmp-" + std::to_string(::getpid());
  temp_ = target_.parent_path() / name;
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
