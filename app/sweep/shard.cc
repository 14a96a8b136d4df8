#include "app/sweep/shard.h"

#include <fmt/format.h>

#include <charconv>

#include "sim/scenario/error.h"

namespace goodsim::app::sweep {
namespace {

constexpr size_t kMaxShards = 100'000;

bool parse_whole(std::string_view text, size_t& value) {
  const char* end = text.data() + text.size();
  const auto r = std::from_chars(text.data(), end, value);
  return !text.empty() && r.ec == std::errc() && r.ptr == end;
}

}  // namespace

Shard parse_shard(std::string_view text) {
  const size_t slash = text.find('/');
  Shard s;
  if (slash == std::string_view::npos || !parse_whole(text.substr(0, slash), s.index) ||
      !parse_whole(text.substr(slash + 1), s.count) || s.count < 1 || s.count > kMaxShards ||
      s.index >= s.count) {
    throw scenario::ScenarioError(
        "--shard", "",
        fmt::format("expected i/n with 1 <= n <= {} and 0 <= i < n (shards are numbered from "
                    "0), got \"{}\"",
                    kMaxShards, text));
  }
  return s;
}

}  // namespace goodsim::app::sweep
