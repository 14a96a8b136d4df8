// Errors for bad scenario input, and the helpers that make their messages precise.
//
// Every problem with user input (a scenario file, a --set override) is reported as a
// ScenarioError naming where it happened: the file (or "--set"), the JSON path inside the
// document (dots and list indices: "policies.1.learners") and what was expected. The CLI
// catches it, prints what() and exits with code 2.
#pragma once

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace goodsim::scenario {

// ScenarioError: bad user input at a known place.
//   file    - the scenario file name as given by the user, "--set" for overrides, or empty.
//   path    - dotted JSON path ("cluster.chips", "policies.1"); empty for the document itself.
//   message - what was expected and what was found, e.g. `expected a count >= 1, got -5`.
// what() joins the non-empty parts with ": ":
//   "scenarios/x.json: cluster.chips: expected a count >= 1, got -5".
// Each part is shortened for what() (file and path to kMaxShownPart characters, the message
// to kMaxShownMessage) so that a huge key or value is never echoed in full; the accessors
// return the parts unshortened.
inline constexpr size_t kMaxShownPart = 200;
inline constexpr size_t kMaxShownMessage = 1000;

class ScenarioError : public std::runtime_error {
 public:
  ScenarioError(std::string file, std::string path, std::string message);

  const std::string& file() const { return file_; }
  const std::string& path() const { return path_; }
  const std::string& message() const { return message_; }

 private:
  std::string file_;
  std::string path_;
  std::string message_;
};

// Appends a key or list index to a dotted path: join_path("policies", "1") == "policies.1",
// join_path("", "seed") == "seed".
std::string join_path(std::string_view parent, std::string_view key);

// `text` itself when at most `limit` characters long, else its first and last limit / 2
// characters around "...(N characters left out)...".
std::string shorten(std::string_view text, size_t limit);

// Case-insensitive Damerau-Levenshtein distance (optimal string alignment: insertions,
// deletions, substitutions and swaps of adjacent characters each cost 1). Time
// O(|a| x |b|), memory O(|b|).
int edit_distance(std::string_view a, std::string_view b);

// The candidate that `word` is most plausibly a typo of, or nullopt when none is close
// enough (roughly: at most 1 edit for short words, 2 for up to 6 characters, 3 beyond, and
// never a complete rewrite). Ties go to the earliest candidate. Words longer than
// kMaxSuggestLength get no suggestion, and candidates whose length differs too much are
// skipped, so the cost is O(kMaxSuggestLength^2) per candidate however long the input.
inline constexpr size_t kMaxSuggestLength = 64;
std::optional<std::string> closest_match(std::string_view word,
                                         const std::vector<std::string>& candidates);

// The tail of an "unknown key" message: `did you mean "chips"?` when a candidate is close,
// otherwise `valid keys are "chips", "hosts"`, or `no keys are allowed here` when there are
// no candidates at all.
std::string key_hint(std::string_view word, const std::vector<std::string>& candidates);

// A short rendering of a JSON value for "got ..." in messages: true, 12.5, "abc" (quoted,
// long strings shortened), null, an object, a list.
std::string describe_value(const nlohmann::json& value);

}  // namespace goodsim::scenario
