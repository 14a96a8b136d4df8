#include "app/sweep/csv.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>

namespace goodsim::app::sweep {

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
  scenario::CsvOptions syntax;
  syntax.multiline_fields = true;
  syntax.need_final_newline = true;
  scenario::CsvText t = scenario::read_csv(text, syntax);
  complete_bytes = t.complete_bytes;
  return std::move(t.records);
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

}  // namespace goodsim::app::sweep
