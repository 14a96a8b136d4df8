#include "cli/sweep/csv.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>

namespace goodsim::cli::sweep {

std::string csv_field(std::string_view field) {
  if (field.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(field);
  std::string out = "\"";
  for (char c : field) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string csv_join(const std::vector<std::string>& fields) {
  std::string out;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) out += ',';
    out += csv_field(fields[i]);
  }
  return out;
}

std::vector<CsvRecord> parse_csv(std::string_view text, size_t& complete_bytes) {
  std::vector<CsvRecord> records;
  CsvRecord current{{std::string()}, 1};
  size_t line = 1;
  bool quoted = false;
  complete_bytes = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    std::string& field = current.fields.back();
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        if (c == '\n') ++line;
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      current.fields.emplace_back();
    } else if (c == '\n') {
      if (!field.empty() && field.back() == '\r') field.pop_back();
      records.push_back(std::move(current));
      complete_bytes = i + 1;
      current = CsvRecord{{std::string()}, ++line};
    } else {
      field += c;
    }
  }
  return records;
}

std::string format_number(double v) {
  if (std::isnan(v)) return "";
  return fmt::format("{}", v);
}

std::string format_number(const std::optional<double>& v) {
  return v ? format_number(*v) : std::string();
}

std::optional<double> parse_number(std::string_view text) {
  double v = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (ec != std::errc() || ptr != end || text.empty() || !std::isfinite(v)) return std::nullopt;
  return v;
}

}  // namespace goodsim::cli::sweep
