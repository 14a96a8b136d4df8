#include "sim/scenario/input_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>

#include <fmt/format.h>

#include "sim/scenario/error.h"

namespace goodsim::scenario {
namespace {

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

// Reads `in` to its end, or until more than `limit` bytes came.
std::string read_stream(std::FILE* in, const std::string& label, std::string_view what,
                        size_t limit) {
  std::string text;
  char chunk[1 << 16];
  while (true) {
    const size_t n = std::fread(chunk, 1, sizeof chunk, in);
    if (text.size() + n > limit) {
      throw ScenarioError(label, "", fmt::format("more than {} bytes ({} MiB), the most a {} "
                                                 "may have; is it the right file?",
                                                 limit, limit >> 20, what));
    }
    text.append(chunk, n);
    if (n < sizeof chunk) break;
  }
  if (std::ferror(in)) {
    throw ScenarioError(label, "", fmt::format("cannot read: {}", std::strerror(errno)));
  }
  return text;
}

}  // namespace

std::string input_label(const std::string& path) {
  return path == kStdinName ? std::string(kStdinLabel) : path;
}

std::string read_input(const std::string& path, std::string_view what, size_t limit) {
  const std::string label = input_label(path);
  if (path == kStdinName) return read_stream(stdin, label, what, limit);
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw ScenarioError(label, "", "cannot read: it is a directory");
  }
  const std::unique_ptr<std::FILE, FileCloser> in(std::fopen(path.c_str(), "rb"));
  if (!in) {
    throw ScenarioError(label, "", fmt::format("cannot open: {}", std::strerror(errno)));
  }
  return read_stream(in.get(), label, what, limit);
}

}  // namespace goodsim::scenario
