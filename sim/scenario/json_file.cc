#include "sim/scenario/json_file.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <vector>

#include <fmt/format.h>

#include "sim/scenario/error.h"

namespace goodsim::scenario {
namespace {

using nlohmann::json;

// Tracks the JSON path while the parser runs, to reject a key repeated in one object.
class DuplicateKeyCheck {
 public:
  explicit DuplicateKeyCheck(const std::string& file) : file_(file) {}

  bool on_event(json::parse_event_t event, const json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start: {
        std::string path = next_path();
        frames_.push_back({event == json::parse_event_t::array_start, 0, "", std::move(path), {}});
        break;
      }
      case json::parse_event_t::key: on_key(parsed.get<std::string>()); break;
      case json::parse_event_t::value: next_path(); break;
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end: frames_.pop_back(); break;
    }
    return true;  // keep everything
  }

 private:
  struct Frame {
    bool is_array = false;
    size_t next_index = 0;
    std::string key;  // the latest key of an object
    std::string path;
    std::set<std::string> keys;
  };

  // The path of the value that starts now (advancing the index inside a list).
  std::string next_path() {
    if (frames_.empty()) return "";
    Frame& top = frames_.back();
    if (top.is_array) return join_path(top.path, std::to_string(top.next_index++));
    return join_path(top.path, top.key);
  }

  void on_key(const std::string& key) {
    Frame& top = frames_.back();
    if (!top.keys.insert(key).second) {
      throw ScenarioError(file_, join_path(top.path, key), "duplicate key");
    }
    top.key = key;
  }

  const std::string& file_;
  std::vector<Frame> frames_;
};

std::string read_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw ScenarioError(path, "", "cannot read: it is a directory");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ScenarioError(path, "", fmt::format("cannot open: {}", std::strerror(errno)));
  std::ostringstream content;
  content << in.rdbuf();
  if (in.bad()) throw ScenarioError(path, "", "cannot read");
  return content.str();
}

// "line L, column C: reason" for a parse error at 1-based byte `byte` of `text`.
std::string locate(const std::string& text, const json::parse_error& e) {
  const size_t pos = std::min(e.byte > 0 ? e.byte - 1 : 0, text.size());
  const auto begin = text.begin();
  const size_t line = 1 + static_cast<size_t>(std::count(begin, begin + pos, '\n'));
  const size_t line_start = text.rfind('\n', pos == 0 ? 0 : pos - 1);
  const size_t column = (line_start == std::string::npos || pos == 0) ? pos + 1 : pos - line_start;
  // nlohmann's message: "[json.exception.parse_error.101] parse error at line 1, column 5:
  // syntax error while parsing ..."; keep the part after its own position.
  std::string reason = e.what();
  const size_t at = reason.find("column ");
  const size_t colon = at == std::string::npos ? at : reason.find(": ", at);
  if (colon != std::string::npos) reason = reason.substr(colon + 2);
  return fmt::format("line {}, column {}: {}", line, column, reason);
}

}  // namespace

json load_json_file(const std::string& path) {
  const std::string text = read_file(path);
  DuplicateKeyCheck check(path);
  const json::parser_callback_t callback = [&check](int /*depth*/, json::parse_event_t event,
                                                    json& parsed) {
    return check.on_event(event, parsed);
  };
  try {
    return json::parse(text, callback);
  } catch (const json::parse_error& e) {
    throw ScenarioError(path, "", locate(text, e));
  }
}

}  // namespace goodsim::scenario
