#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "sim/scenario/csv_reader.h"

namespace {

namespace sc = goodsim::scenario;
using Fields = std::vector<std::string>;

sc::CsvOptions trace_syntax() {
  sc::CsvOptions o;
  o.trim_blanks = true;
  o.comments = true;
  return o;
}

sc::CsvOptions results_syntax() {
  sc::CsvOptions o;
  o.multiline_fields = true;
  o.need_final_newline = true;
  return o;
}

// The CsvSyntaxError of reading `text`, as "line:column: message".
std::string syntax_error(const std::string& text, const sc::CsvOptions& o) {
  try {
    sc::read_csv(text, o);
  } catch (const sc::CsvSyntaxError& e) {
    return std::to_string(e.line()) + ":" + std::to_string(e.column()) + ": " + e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("csv reader: fields, quotes, doubled quotes and CRLF", "[csv]") {
  const std::string text = "a,\"b,c\",\"say \"\"hi\"\"\"\r\n,x,\r\n";
  const sc::CsvText t = sc::read_csv(text, {});
  REQUIRE(t.records.size() == 2);
  CHECK(t.records[0].fields == Fields{"a", "b,c", "say \"hi\""});
  CHECK(t.records[0].line == 1);
  CHECK(t.records[1].fields == Fields{"", "x", ""});
  CHECK(t.records[1].line == 2);
  CHECK(t.complete_bytes == text.size());
}

TEST_CASE("csv reader: a last line without its line end", "[csv]") {
  const std::string text = "h1,h2\n1,2\n3,4";
  const sc::CsvText whole = sc::read_csv(text, {});
  REQUIRE(whole.records.size() == 3);
  CHECK(whole.records[2].fields == Fields{"3", "4"});
  CHECK(whole.complete_bytes == text.size());
  // A result file cut by a kill: the partial record is dropped and not counted.
  const sc::CsvText cut = sc::read_csv(text, results_syntax());
  REQUIRE(cut.records.size() == 2);
  CHECK(cut.complete_bytes == 10);
  const sc::CsvText cut_in_quote = sc::read_csv("h\n\"abc", results_syntax());
  CHECK(cut_in_quote.records.size() == 1);
  CHECK(cut_in_quote.complete_bytes == 2);
}

TEST_CASE("csv reader: hand-written traces trim blanks and skip comments", "[csv]") {
  const std::string text = "\xEF\xBB\xBF# a comment, with \"quotes\n\ntime , cause\n \t\r\n"
                           "  1s ,  \"disk, full\"  \n  # indented comment\n2s,x";
  const sc::CsvText t = sc::read_csv(text, trace_syntax());
  REQUIRE(t.records.size() == 3);
  CHECK(t.records[0].fields == Fields{"time", "cause"});
  CHECK(t.records[0].line == 3);
  CHECK(t.records[1].fields == Fields{"1s", "disk, full"});
  CHECK(t.records[1].line == 5);
  CHECK(t.records[2].fields == Fields{"2s", "x"});
  CHECK(t.records[2].line == 7);
  CHECK(t.complete_bytes == text.size());
}

TEST_CASE("csv reader: line breaks inside quotes only where allowed", "[csv]") {
  const std::string text = "a,\"two\nlines\"\nb,c\n";
  const sc::CsvText t = sc::read_csv(text, results_syntax());
  REQUIRE(t.records.size() == 2);
  CHECK(t.records[0].fields == Fields{"a", "two\nlines"});
  CHECK(t.records[1].line == 3);
  CHECK(syntax_error(text, trace_syntax()) ==
        "1:2: unterminated quoted field (a field that starts with '\"' must end with one)");
}

TEST_CASE("csv reader: malformed quoting names line and field", "[csv]") {
  CHECK(syntax_error("x\n1,\"ab\"c,3\n", trace_syntax()) ==
        "2:2: expected a comma after the closing quote");
  CHECK(syntax_error("x\n1,2,\"abc", trace_syntax()) ==
        "2:3: unterminated quoted field (a field that starts with '\"' must end with one)");
  CHECK(syntax_error("\"a\"  ,b\n", {}) == "1:1: expected a comma after the closing quote");
  CHECK(syntax_error("\"a\"  ,b\n", trace_syntax()).empty());
}

TEST_CASE("csv reader: empty text and blank lines", "[csv]") {
  CHECK(sc::read_csv("", {}).records.empty());
  CHECK(sc::read_csv("\n\n", trace_syntax()).records.empty());
  const sc::CsvText blank = sc::read_csv("\n", {});
  REQUIRE(blank.records.size() == 1);
  CHECK(blank.records[0].fields == Fields{""});
}
