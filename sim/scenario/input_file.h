// Reading an input file (a scenario, a failure trace, a target file) whole, within a size
// limit that no kind of file can get around.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace goodsim::scenario {

// The most any input is read: 64 MiB of text. A scenario needs a few kB, a failure trace of
// a million outages about 40 MB.
inline constexpr size_t kMaxInputBytes = size_t{64} << 20;

// The name "-" stands for standard input (`gen | goodsim run -`); it is labelled "<stdin>"
// in messages and in outputs.
inline constexpr std::string_view kStdinName = "-";
inline constexpr std::string_view kStdinLabel = "<stdin>";

// "<stdin>" for "-", else `path` itself: how an input is named in messages.
std::string input_label(const std::string& path);

// The whole content of `path` ("-": standard input), read as a stream whatever the file is
// (a regular file, a pipe, a FIFO, a device), so that /dev/zero or an endless pipe stops at
// `limit` bytes instead of exhausting memory. `what` names the kind of input in messages
// ("scenario", "trace file"). Throws ScenarioError naming the file (input_label) when it
// cannot be opened ("x.json: cannot open: No such file or directory"), is a directory,
// cannot be read, or holds more than `limit` bytes.
// Opening a FIFO waits for its writer, as any reader of a FIFO does.
std::string read_input(const std::string& path, std::string_view what,
                       size_t limit = kMaxInputBytes);

}  // namespace goodsim::scenario
