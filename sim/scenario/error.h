// Errors for bad scenario input, and the helpers that make their messages precise.
//
// Every problem with user input (a scenario file, a --set override) is reported as a
// ScenarioError naming where it happened: the file (or "--set"), the JSON path inside the
// document (dots and list indices: "policies.1.learners") and what was expected. The CLI
// catches it, prints what() and exits with code 2.
#pragma once

#include <cstddef>
#include <memory>
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

//
// Several errors found in one pass (see ErrorList) travel as one ScenarioError
// made by combined(): file(), path() and message() are the first error's,
// errors() lists them all, and what() shows one per line.
class ScenarioError : public std::runtime_error {
 public:
  ScenarioError(std::string file, std::string path, std::string message);
  // REQUIRES: !errors.empty(). `left_out`: errors found beyond the listed ones.
  static ScenarioError combined(std::vector<ScenarioError> errors, size_t left_out);

  const std::string& file() const { return file_; }
  const std::string& path() const { return path_; }
  const std::string& message() const { return message_; }
  // Every error this one stands for, in the order found; {*this} for a single one.
  std::vector<ScenarioError> errors() const;
  // One line per error (what() of each), plus a last line when some were left out.
  std::vector<std::string> lines() const;
  size_t left_out() const { return left_out_; }

 private:
  ScenarioError(const ScenarioError& first, std::string text,
                std::shared_ptr<const std::vector<ScenarioError>> all, size_t left_out);

  std::string file_;
  std::string path_;
  std::string message_;
  std::shared_ptr<const std::vector<ScenarioError>> all_;  // null for a single error
  size_t left_out_ = 0;
};

// The errors of one validation pass over a scenario, up to kMaxErrors (the
// others are counted). Readers in collecting mode (ObjectReader's `errors`)
// add what they find and go on with a placeholder value; checks that cannot go
// on throw, and attempt() records what they throw and lets the caller go on
// with the next part of the scenario.
inline constexpr size_t kMaxErrors = 20;

class ErrorList {
 public:
  // Every error `e` stands for. `replaced`: a value was replaced by a stand-in
  // (false for an unknown key, which changes no value read).
  void add(const ScenarioError& e, bool replaced = true);
  bool empty() const { return errors_.empty(); }
  size_t size() const { return errors_.size() + left_out_; }
  // Some error that replaced a value was recorded at `path` or below it ("" matches
  // every error): what was read there may not be what the user meant.
  bool any_under(std::string_view path) const;
  // Runs `step`; a ScenarioError it throws is recorded, unless an error
  // already recorded at or under `section` explains it (a value read there
  // was replaced by a placeholder, which may upset later checks).
  // The reading of `section` then counts as stopped (stopped_at()).
  template <class Step>
  void attempt(std::string_view section, Step&& step) {
    try {
      step();
    } catch (const ScenarioError& e) {
      if (!any_under(section)) add(e);
      stopped_.emplace_back(section);
    }
  }
  // Reading of the object at `path` (or of one containing it) was stopped by
  // an error: some of its keys may never have been asked about.
  bool stopped_at(std::string_view path) const;
  // Throws ScenarioError::combined() of the errors, if any.
  void throw_if_any() const;

 private:
  std::vector<ScenarioError> errors_;
  std::vector<bool> replaced_;  // per error, as add() was told
  std::vector<std::string> stopped_;
  size_t left_out_ = 0;
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
