// A std::ostream that gzip-compresses (zlib, RFC 1952) what is written to it
// into another stream, so large outputs (the run trace) stay small on disk and
// tools that read .gz (ui.perfetto.dev, chrome://tracing, zcat) open them.
#pragma once

#include <memory>
#include <ostream>
#include <streambuf>
#include <vector>

struct z_stream_s;  // zlib's z_stream

namespace goodsim::output {

// Ownership: refers to `sink`, which must outlive it. finish() writes the
// gzip trailer; it must be called once, before the sink is committed
// (the destructor does not finish: an unfinished file is discarded anyway).
// Throws std::runtime_error on a zlib error.
class GzipStream : public std::ostream {
 public:
  explicit GzipStream(std::ostream& sink, int level = 6);
  ~GzipStream() override;
  GzipStream(const GzipStream&) = delete;
  GzipStream& operator=(const GzipStream&) = delete;

  void finish();

 private:
  class Buffer : public std::streambuf {
   public:
    Buffer(std::ostream& sink, int level);
    ~Buffer() override;
    void finish();

   protected:
    int_type overflow(int_type ch) override;
    int sync() override;

   private:
    void deflate_input(int flush);
    std::ostream& sink_;
    std::vector<char> in_;
    std::vector<char> out_;
    std::unique_ptr<z_stream_s> z_;
    bool finished_ = false;
  };
  Buffer buffer_;
};

}  // namespace goodsim::output
