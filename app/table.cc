#include "app/table.h"

#include <fmt/format.h>

#include <algorithm>

#include "sim/core/check.h"

namespace goodsim::app {

void Table::add_row(std::vector<std::string> cells) {
  GOODSIM_CHECK(cells.size() == header_.size());
  rows_.push_back(std::move(cells));
}

std::string Table::render() const {
  std::vector<size_t> width(header_.size());
  for (size_t c = 0; c < header_.size(); ++c) width[c] = header_[c].size();
  for (const auto& row : rows_) {
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out;
    for (size_t c = 0; c < cells.size(); ++c) {
      const std::string pad(width[c] - cells[c].size(), ' ');
      out += c == 0 ? cells[c] + pad : "  " + pad + cells[c];
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::string out = line(header_);
  for (const auto& row : rows_) out += line(row);
  return out;
}

std::string short_duration(double s) {
  if (s < 60) return fmt::format("{:.3g}s", s);
  if (s < 3600) return fmt::format("{:.3g}m", s / 60);
  if (s < 86400) return fmt::format("{:.3g}h", s / 3600);
  return fmt::format("{:.3g}d", s / 86400);
}

}  // namespace goodsim::app
