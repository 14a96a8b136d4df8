// Loading a scenario file as strict JSON, within limits a hostile file cannot get around.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace goodsim::scenario {

// Limits on one JSON document. A scenario needs a few hundred values nested a few levels
// deep; a chaos timeline or a long list of sites a few hundred thousand values. Beyond these
// the document is refused before the parsed tree can exhaust memory.
inline constexpr size_t kMaxJsonBytes = size_t{64} << 20;  // 64 MiB of text
inline constexpr size_t kMaxJsonDepth = 64;                // objects and lists inside each other
inline constexpr size_t kMaxJsonValues = 2'000'000;        // values of any kind, keys excluded

// Reads (read_input: "-" is standard input, any kind of file is read as a stream within
// kMaxJsonBytes) and parses the JSON file at `path` (strict JSON: no comments, no trailing
// commas).
// Any JSON value is returned; checking that it is an object is the caller's job.
// Throws ScenarioError naming the file when it cannot be opened or read, when it is a
// directory, on a syntax error (with line and column, e.g.
// "x.json: line 3, column 14: syntax error while parsing object - unexpected '}'; ..."), on a
// number too large for a double ("x.json: job.params: line 1, column 30: number overflow
// parsing '1e555'"), on a key repeated within one object ("x.json: cluster.chips: duplicate
// key"), which plain JSON parsers silently resolve to the last value, and when a limit above
// is exceeded. Memory and time are linear in the size of the text.
nlohmann::json load_json_file(const std::string& path);

// Parses `text` with the checks of load_json_file; `label` names the source in messages.
nlohmann::json parse_json_text(std::string_view text, const std::string& label);

// Like parse_json_text, but returns nullopt when `text` is not JSON at all (a syntax error or
// a number overflow); still throws ScenarioError for a duplicate key or an exceeded limit.
std::optional<nlohmann::json> try_parse_json_text(std::string_view text,
                                                  const std::string& label);

}  // namespace goodsim::scenario
