// Reading CSV text: the one tokenizer behind failure traces (models/failure/
// trace_replay) and sweep result files (app/sweep/results_file).
//
// Grammar (RFC 4180): records are lines of comma-separated fields; a field
// that starts with a double quote ends at the next lone double quote, may hold
// commas (and, where allowed, line breaks), and writes a double quote as "".
// A CR before a line end is dropped. A UTF-8 byte-order mark at the start of
// the text is skipped. Options cover what the two kinds of file differ in:
// hand-written traces allow blanks around fields and comment lines; result
// files written by goodsim may be cut short by a kill, so their last record
// counts only once its line end is there.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace goodsim::scenario {

// One record, without its line end.
struct CsvRecord {
  std::vector<std::string> fields;
  size_t line = 0;  // 1-based line where the record starts
};

struct CsvOptions {
  // Spaces and tabs around a field are not part of it.
  bool trim_blanks = false;
  // Blank lines and lines whose first non-blank character is '#' are skipped.
  bool comments = false;
  // A quoted field may hold line breaks (else an unclosed quote at the line
  // end is an error on that line).
  bool multiline_fields = false;
  // A last record without its line end is incomplete: it is not returned and
  // not counted in complete_bytes (else it is a record like any other).
  bool need_final_newline = false;
};

// A malformed record: where it is (1-based line, 1-based field) and why.
class CsvSyntaxError : public std::runtime_error {
 public:
  CsvSyntaxError(size_t line, size_t column, const std::string& message)
      : std::runtime_error(message), line_(line), column_(column) {}
  size_t line() const { return line_; }
  size_t column() const { return column_; }

 private:
  size_t line_;
  size_t column_;
};

struct CsvText {
  std::vector<CsvRecord> records;
  size_t complete_bytes = 0;  // length of the prefix of the text read whole
};

// Splits `text` into records. Throws CsvSyntaxError on text after a closing
// quote and on a quoted field that does not end (unless need_final_newline,
// where that is the incomplete last record).
CsvText read_csv(std::string_view text, const CsvOptions& options);

}  // namespace goodsim::scenario
