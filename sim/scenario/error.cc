#include "sim/scenario/error.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/scenario/text.h"

namespace goodsim::scenario {
namespace {

std::string compose(const std::string& file, const std::string& path, const std::string& msg) {
  std::string out;
  const std::pair<const std::string*, size_t> parts[] = {
      {&file, kMaxShownPart}, {&path, kMaxShownPart}, {&msg, kMaxShownMessage}};
  for (const auto& [part, limit] : parts) {
    if (part->empty()) continue;
    if (!out.empty()) out += ": ";
    out += shorten(*part, limit);
  }
  return out;
}

char lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

// How many edits a word of this length may plausibly contain as a typo.
int allowed_edits(size_t length) {
  if (length <= 3) return 1;
  if (length <= 6) return 2;
  return 3;
}

}  // namespace

std::string shorten(std::string_view text, size_t limit) {
  if (text.size() <= limit) return std::string(text);
  const size_t keep = limit / 2;
  return fmt::format("{}...({} characters left out)...{}", text.substr(0, keep),
                     text.size() - 2 * keep, text.substr(text.size() - keep));
}

ScenarioError::ScenarioError(std::string file, std::string path, std::string message)
    : std::runtime_error(compose(file, path, message)),
      file_(std::move(file)),
      path_(std::move(path)),
      message_(std::move(message)) {}

ScenarioError::ScenarioError(const ScenarioError& first, std::string text,
                             std::shared_ptr<const std::vector<ScenarioError>> all,
                             size_t left_out)
    : std::runtime_error(text),
      file_(first.file_),
      path_(first.path_),
      message_(first.message_),
      all_(std::move(all)),
      left_out_(left_out) {}

ScenarioError ScenarioError::combined(std::vector<ScenarioError> errors, size_t left_out) {
  if (errors.size() == 1 && left_out == 0) return errors.front();
  auto all = std::make_shared<const std::vector<ScenarioError>>(std::move(errors));
  ScenarioError shell(all->front(), "", all, left_out);
  std::string text;
  for (const std::string& line : shell.lines()) text += (text.empty() ? "" : "\n") + line;
  return ScenarioError(all->front(), std::move(text), all, left_out);
}

std::vector<ScenarioError> ScenarioError::errors() const {
  if (!all_) return {*this};
  return *all_;
}

std::vector<std::string> ScenarioError::lines() const {
  if (!all_) return {what()};
  std::vector<std::string> out;
  for (const ScenarioError& e : *all_) out.emplace_back(e.what());
  if (left_out_ > 0) {
    out.push_back(fmt::format("{} more error{} not shown (at most {} are listed)", left_out_,
                              left_out_ == 1 ? "" : "s", kMaxErrors));
  }
  return out;
}

void ErrorList::add(const ScenarioError& e, bool replaced) {
  for (const ScenarioError& one : e.errors()) {
    if (errors_.size() < kMaxErrors) {
      errors_.push_back(one);
      replaced_.push_back(replaced);
    } else {
      ++left_out_;
    }
  }
}

namespace {
// `path` is `root` or below it ("" is the root of everything).
bool at_or_under(std::string_view path, std::string_view root) {
  return root.empty() || path == root ||
         (path.size() > root.size() && path.starts_with(root) && path[root.size()] == '.');
}
}  // namespace

bool ErrorList::any_under(std::string_view path) const {
  for (size_t i = 0; i < errors_.size(); ++i) {
    if (replaced_[i] && at_or_under(errors_[i].path(), path)) return true;
  }
  return false;
}

bool ErrorList::stopped_at(std::string_view path) const {
  return std::any_of(stopped_.begin(), stopped_.end(),
                     [path](const std::string& s) { return at_or_under(path, s); });
}

void ErrorList::throw_if_any() const {
  if (!errors_.empty()) throw ScenarioError::combined(errors_, left_out_);
}

std::string join_path(std::string_view parent, std::string_view key) {
  if (parent.empty()) return std::string(key);
  if (key.empty()) return std::string(parent);
  std::string out(parent);
  out += '.';
  out += key;
  return out;
}

int edit_distance(std::string_view a, std::string_view b) {
  const size_t m = b.size();
  // Three rolling rows (the swap rule needs the row two back): O(|b|) memory.
  std::vector<int> two_back(m + 1), previous(m + 1), current(m + 1);
  for (size_t j = 0; j <= m; ++j) previous[j] = static_cast<int>(j);
  for (size_t i = 1; i <= a.size(); ++i) {
    current[0] = static_cast<int>(i);
    for (size_t j = 1; j <= m; ++j) {
      const int cost = lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1;
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost});
      if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) &&
          lower(a[i - 2]) == lower(b[j - 1])) {
        current[j] = std::min(current[j], two_back[j - 2] + 1);
      }
    }
    std::swap(two_back, previous);
    std::swap(previous, current);
  }
  return previous[m];
}

std::optional<std::string> closest_match(std::string_view word,
                                         const std::vector<std::string>& candidates) {
  if (word.size() > kMaxSuggestLength) return std::nullopt;
  std::optional<std::string> best;
  int best_distance = allowed_edits(word.size()) + 1;
  for (const auto& candidate : candidates) {
    // The distance is at least the difference in length: skip hopeless (and long) candidates.
    const size_t gap = candidate.size() > word.size() ? candidate.size() - word.size()
                                                      : word.size() - candidate.size();
    if (gap >= static_cast<size_t>(best_distance)) continue;
    const int distance = edit_distance(word, candidate);
    const int longest = static_cast<int>(std::max(word.size(), candidate.size()));
    if (distance < best_distance && distance < longest) {
      best = candidate;
      best_distance = distance;
    }
  }
  return best;
}

std::string key_hint(std::string_view word, const std::vector<std::string>& candidates) {
  if (candidates.empty()) return "no keys are allowed here";
  if (auto match = closest_match(word, candidates)) {
    return fmt::format("did you mean \"{}\"?", *match);
  }
  std::vector<std::string> sorted = candidates;
  std::sort(sorted.begin(), sorted.end());
  return "valid keys are " + quoted_list(sorted);
}

std::string describe_value(const nlohmann::json& value) {
  constexpr size_t kMaxShown = 40;
  // Replace, not throw, on invalid UTF-8: text from the command line is unchecked and a
  // shortened string may end mid-character.
  const auto dump = [](const nlohmann::json& v) {
    return v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  };
  if (value.is_object()) return value.empty() ? "an empty object" : "an object";
  if (value.is_array()) return value.empty() ? "an empty list" : "a list";
  if (value.is_string()) {
    const auto& text = value.get_ref<const std::string&>();
    if (text.size() <= kMaxShown) return dump(text);
    return dump(text.substr(0, kMaxShown) + "...");
  }
  return dump(value);
}

}  // namespace goodsim::scenario
