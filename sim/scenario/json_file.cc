#include "sim/scenario/json_file.h"

#include <algorithm>
#include <set>
#include <vector>

#include <fmt/format.h>

#include "sim/scenario/error.h"
#include "sim/scenario/input_file.h"

namespace goodsim::scenario {
namespace {

using nlohmann::json;

// "line L, column C: reason" for a problem at 1-based byte `byte` of `text`. `what` is
// nlohmann's message ("[json.exception.parse_error.101] parse error at line 1, column 5:
// syntax error while parsing ..."); only its reason is kept.
std::string locate(std::string_view text, size_t byte, const std::string& what) {
  const size_t pos = std::min(byte > 0 ? byte - 1 : 0, text.size());
  const auto begin = text.begin();
  const size_t line = 1 + static_cast<size_t>(std::count(begin, begin + pos, '\n'));
  const size_t line_start = text.rfind('\n', pos == 0 ? 0 : pos - 1);
  const size_t column = (line_start == std::string::npos || pos == 0) ? pos + 1 : pos - line_start;
  std::string reason = what;
  const size_t at = reason.find("column ");
  const size_t colon = at == std::string::npos ? at : reason.find(": ", at);
  if (colon != std::string::npos) {
    reason = reason.substr(colon + 2);
  } else if (const size_t tag = reason.find("] "); tag != std::string::npos) {
    reason = reason.substr(tag + 2);  // "[json.exception.out_of_range.406] number overflow ..."
  }
  return fmt::format("line {}, column {}: {}", line, column, reason);
}

// Builds the DOM through nlohmann's SAX interface (iterative, linear) while enforcing the
// depth and size limits and rejecting duplicate keys. JSON paths are only built for a
// message, so deep documents cost no more than their text.
class GuardedDom {
 public:
  GuardedDom(json& result, const std::string& label) : dom_(result, true), label_(label) {}

  bool null() { return value() && dom_.null(); }
  bool boolean(bool v) { return value() && dom_.boolean(v); }
  bool number_integer(json::number_integer_t v) { return value() && dom_.number_integer(v); }
  bool number_unsigned(json::number_unsigned_t v) { return value() && dom_.number_unsigned(v); }
  bool number_float(json::number_float_t v, const json::string_t& s) {
    return value() && dom_.number_float(v, s);
  }
  bool string(json::string_t& v) { return value() && dom_.string(v); }
  bool binary(json::binary_t& v) { return value() && dom_.binary(v); }
  bool start_object(size_t n) { return open(false) && dom_.start_object(n); }
  bool start_array(size_t n) { return open(true) && dom_.start_array(n); }
  bool end_object() {
    frames_.pop_back();
    return dom_.end_object();
  }
  bool end_array() {
    frames_.pop_back();
    return dom_.end_array();
  }
  bool key(json::string_t& k) {
    Frame& top = frames_.back();
    if (!top.keys.insert(k).second) throw ScenarioError(label_, path(k), "duplicate key");
    top.key = k;
    return dom_.key(k);
  }
  bool parse_error(size_t position, const std::string& /*token*/,
                   const nlohmann::detail::exception& e) {
    error_ = Error{position, e.what(), e.id == 406 ? path("") : ""};
    return false;
  }

  struct Error {
    size_t byte = 0;
    std::string what;
    std::string path;  // of the value, for a number overflow
  };
  const std::optional<Error>& error() const { return error_; }

 private:
  struct Frame {
    bool is_array = false;
    size_t values = 0;  // elements so far (lists)
    std::string key;    // the latest key (objects)
    std::set<std::string, std::less<>> keys;
  };

  // A value starts (a scalar, an object or a list).
  bool value() {
    if (++values_ > kMaxJsonValues) {
      throw ScenarioError(label_, "", fmt::format("more than {} JSON values; a scenario "
                                                  "needs far fewer", kMaxJsonValues));
    }
    if (!frames_.empty() && frames_.back().is_array) ++frames_.back().values;
    return true;
  }

  bool open(bool is_array) {
    value();
    if (frames_.size() >= kMaxJsonDepth) {
      throw ScenarioError(label_, path(""), fmt::format("objects and lists nested deeper than "
                                                        "{} levels", kMaxJsonDepth));
    }
    frames_.push_back(Frame{is_array, 0, "", {}});
    return true;
  }

  // The path of the current value, or of `key` in the innermost object when not empty.
  std::string path(std::string_view key) const {
    std::string out;
    for (size_t i = 0; i < frames_.size(); ++i) {
      const Frame& f = frames_[i];
      if (i + 1 == frames_.size() && !key.empty()) return join_path(out, key);
      out = join_path(out, f.is_array ? std::to_string(f.values - 1) : f.key);
    }
    return out;
  }

  nlohmann::detail::json_sax_dom_parser<json> dom_;
  const std::string& label_;
  std::vector<Frame> frames_;
  size_t values_ = 0;
  std::optional<Error> error_;
};

// The parsed document, or the parser's error (syntax, number overflow).
std::pair<json, std::optional<GuardedDom::Error>> parse_guarded(std::string_view text,
                                                               const std::string& label) {
  if (text.size() > kMaxJsonBytes) {
    throw ScenarioError(label, "", fmt::format("{} bytes of JSON; at most {} (64 MiB) are read",
                                               text.size(), kMaxJsonBytes));
  }
  json result;
  GuardedDom dom(result, label);
  json::sax_parse(text, &dom);
  return {std::move(result), dom.error()};
}

}  // namespace

json parse_json_text(std::string_view text, const std::string& label) {
  auto [doc, error] = parse_guarded(text, label);
  if (error) throw ScenarioError(label, error->path, locate(text, error->byte, error->what));
  return std::move(doc);
}

std::optional<json> try_parse_json_text(std::string_view text, const std::string& label) {
  auto [doc, error] = parse_guarded(text, label);
  if (error) return std::nullopt;
  return std::move(doc);
}

json load_json_file(const std::string& path) {
  return parse_json_text(read_input(path, "scenario", kMaxJsonBytes), input_label(path));
}

}  // namespace goodsim::scenario
