#include "sim/scenario/csv_reader.h"

#include <algorithm>

#include "sim/scenario/text.h"

namespace goodsim::scenario {
namespace {

bool is_blank(char c) { return c == ' ' || c == '\t'; }

class Scanner {
 public:
  Scanner(std::string_view text, const CsvOptions& options) : t_(text), o_(options) {
    if (t_.starts_with("\xEF\xBB\xBF")) i_ = 3;
  }

  CsvText run() {
    CsvText out;
    out.complete_bytes = i_;
    while (i_ < t_.size()) {
      if (o_.comments && skip_comment_line()) {
        out.complete_bytes = i_;
        continue;
      }
      CsvRecord record{{}, line_};
      const bool ended = read_record(record);
      if (!ended && o_.need_final_newline) break;
      out.records.push_back(std::move(record));
      out.complete_bytes = i_;
    }
    return out;
  }

 private:
  // A blank or '#' line at i_: skips it with its line end.
  bool skip_comment_line() {
    const size_t end = std::min(t_.find('\n', i_), t_.size());
    std::string_view content = trim(t_.substr(i_, end - i_));
    if (!content.empty() && content.back() == '\r') content = trim(content.substr(0, content.size() - 1));
    if (!content.empty() && content.front() != '#') return false;
    i_ = end < t_.size() ? end + 1 : end;
    if (end < t_.size()) ++line_;
    return true;
  }

  // Reads one record; returns whether it ended with a line end (false: the
  // text ended first, or an incomplete quoted field when allowed).
  bool read_record(CsvRecord& record) {
    for (;;) {
      const size_t column = record.fields.size() + 1;
      if (o_.trim_blanks) skip_blanks();
      std::string field;
      if (i_ < t_.size() && t_[i_] == '"') {
        if (!read_quoted(field, record.line, column)) return false;
      } else {
        read_plain(field);
      }
      record.fields.push_back(std::move(field));
      if (i_ >= t_.size()) return false;
      const char c = t_[i_++];
      if (c == '\n') {
        ++line_;
        return true;
      }
      // c == ',': the next field.
    }
  }

  void read_plain(std::string& field) {
    size_t end = i_;
    while (end < t_.size() && t_[end] != ',' && t_[end] != '\n') ++end;
    std::string_view raw = t_.substr(i_, end - i_);
    if (!raw.empty() && raw.back() == '\r' && (end == t_.size() || t_[end] == '\n')) {
      raw.remove_suffix(1);
    }
    field = o_.trim_blanks ? trim(raw) : raw;
    i_ = end;
  }

  // Reads "..." at i_; leaves i_ at the comma or line end after it. Returns
  // false for an unclosed field at the end of an incomplete text.
  bool read_quoted(std::string& field, size_t record_line, size_t column) {
    for (++i_;; ++i_) {
      if (i_ >= t_.size()) {
        if (o_.need_final_newline) return false;
        unclosed(record_line, column);
      }
      const char c = t_[i_];
      if (c == '"') {
        if (i_ + 1 < t_.size() && t_[i_ + 1] == '"') {
          field += '"';
          ++i_;
          continue;
        }
        ++i_;
        break;
      }
      if (c == '\n') {
        if (!o_.multiline_fields) unclosed(line_, column);
        ++line_;
      }
      field += c;
    }
    if (o_.trim_blanks) skip_blanks();
    if (i_ < t_.size() && t_[i_] == '\r' && (i_ + 1 == t_.size() || t_[i_ + 1] == '\n')) ++i_;
    if (i_ < t_.size() && t_[i_] != ',' && t_[i_] != '\n') {
      throw CsvSyntaxError(line_, column, "expected a comma after the closing quote");
    }
    return true;
  }

  [[noreturn]] void unclosed(size_t line, size_t column) const {
    throw CsvSyntaxError(line, column, "unterminated quoted field (a field that starts with "
                                       "'\"' must end with one)");
  }

  void skip_blanks() {
    while (i_ < t_.size() && is_blank(t_[i_])) ++i_;
  }

  std::string_view t_;
  const CsvOptions& o_;
  size_t i_ = 0;
  size_t line_ = 1;
};

}  // namespace

CsvText read_csv(std::string_view text, const CsvOptions& options) {
  return Scanner(text, options).run();
}

}  // namespace goodsim::scenario
