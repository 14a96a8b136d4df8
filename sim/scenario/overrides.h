// Command-line overrides of scenario values: `--set path.to.key=value`.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "sim/scenario/error.h"

namespace goodsim::scenario {

// Applies one `--set` assignment to a scenario document, in place.
//
// Path: dot-separated keys from the document root; list elements by numeric index
// ("policies.1.learners"). Every object and list along the way must already exist; the
// final key of an object may be new (strict validation later rejects unknown keys), while a
// final list index must be within the list (no appending).
//
// Value: everything after the first '='. It is parsed as JSON if it parses (numbers,
// true/false, null, "quoted strings", objects, lists); otherwise it is taken as a plain
// string, so `horizon=36h` sets the string "36h". A value of null makes the key count as
// absent for ObjectReader (its default applies).
//
// Errors: ScenarioError with file "--set" and the path where the problem is, e.g.
//   "--set: cluster.chps: no such key; did you mean "chips"?"
//   "--set: policies.5: index 5 is out of range; the list has 2 elements"
//   "--set: horizon.unit: cannot set a key in "horizon": it is "36h", not an object or a list"
//   "--set: expected path.to.key=value, got "horizon""
// On error the document is left unchanged.
void apply_override(nlohmann::json& doc, std::string_view assignment);

// An error found later, while validating the document the assignments produced: when it lies
// at or under a key that one of them set, the same error addressed to that assignment
// ("--set cluster.chips=-5: cluster.chips: expected a count >= 1, got -5"), so the user is
// sent to the command line rather than to the file; the last matching assignment (the one
// that took effect) wins. Any other error is returned unchanged.
ScenarioError attribute_to_override(const ScenarioError& error,
                                    const std::vector<std::string>& assignments);

// Where a scenario key was given outside the file: `label` names the argument in messages
// ("--set cluster.chips=-5", "--vary horizon=1d", "--fit policies.0.restart_time"), `path`
// is the key it assigns ("cluster.chips"). Every option that sets keys by path (--set,
// --vary, --fit, and any later one) attributes errors through attribute_to_sources.
struct KeySource {
  std::string label;
  std::string path;
};

// Each error `error` stands for that lies at or under the path of one of `sources`,
// addressed to the last such source (the one that took effect): its file becomes the
// source's label, its path and message are kept. Any other error is returned unchanged.
ScenarioError attribute_to_sources(const ScenarioError& error,
                                   const std::vector<KeySource>& sources);

}  // namespace goodsim::scenario
