// Loading a scenario file as strict JSON.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace goodsim::scenario {

// Reads and parses the JSON file at `path` (strict JSON: no comments, no trailing commas).
// Any JSON value is returned; checking that it is an object is the caller's job.
// Throws ScenarioError naming the file when it cannot be opened or read, when it is a
// directory, on a syntax error (with line and column, e.g.
// "x.json: line 3, column 14: syntax error while parsing object - unexpected '}'; ..."), and
// on a key repeated within one object ("x.json: cluster.chips: duplicate key"), which plain
// JSON parsers silently resolve to the last value.
nlohmann::json load_json_file(const std::string& path);

}  // namespace goodsim::scenario
