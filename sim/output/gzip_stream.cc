#include "sim/output/gzip_stream.h"

#include <zlib.h>

#include <stdexcept>
#include <string>

namespace goodsim::output {
namespace {

constexpr size_t kChunk = 1 << 16;
constexpr int kGzipWindowBits = 15 + 16;  // 32 KiB window, gzip header and trailer
constexpr int kMemLevel = 8;


}  // namespace

GzipStream::Buffer::Buffer(std::ostream& sink, int level)
    : sink_(sink), in_(kChunk), out_(kChunk), z_(std::make_unique<z_stream>()) {
  if (deflateInit2(z_.get(), level, Z_DEFLATED, kGzipWindowBits, kMemLevel,
                   Z_DEFAULT_STRATEGY) != Z_OK) {
    throw std::runtime_error("cannot start gzip compression");
  }
  setp(in_.data(), in_.data() + in_.size());
}

GzipStream::Buffer::~Buffer() {
  deflateEnd(z_.get());
}

// Compresses the buffered input; with Z_FINISH also writes the trailer.
void GzipStream::Buffer::deflate_input(int flush) {
  z_stream& z = *z_;
  z.next_in = reinterpret_cast<Bytef*>(pbase());
  z.avail_in = static_cast<uInt>(pptr() - pbase());
  int rc = Z_OK;
  do {
    z.next_out = reinterpret_cast<Bytef*>(out_.data());
    z.avail_out = static_cast<uInt>(out_.size());
    rc = deflate(&z, flush);
    if (rc == Z_STREAM_ERROR) throw std::runtime_error("gzip compression failed");
    sink_.write(out_.data(), static_cast<std::streamsize>(out_.size() - z.avail_out));
  } while (z.avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
  setp(in_.data(), in_.data() + in_.size());
}

GzipStream::Buffer::int_type GzipStream::Buffer::overflow(int_type ch) {
  if (finished_) return traits_type::eof();
  deflate_input(Z_NO_FLUSH);
  if (!traits_type::eq_int_type(ch, traits_type::eof())) {
    *pptr() = traits_type::to_char_type(ch);
    pbump(1);
  }
  return traits_type::not_eof(ch);
}

// Compression needs whole blocks: sync() keeps the input for later.
int GzipStream::Buffer::sync() { return 0; }

void GzipStream::Buffer::finish() {
  if (finished_) return;
  deflate_input(Z_FINISH);
  finished_ = true;
}

GzipStream::GzipStream(std::ostream& sink, int level)
    : std::ostream(nullptr), buffer_(sink, level) {
  rdbuf(&buffer_);
}

GzipStream::~GzipStream() = default;

void GzipStream::finish() { buffer_.finish(); }

}  // namespace goodsim::output
