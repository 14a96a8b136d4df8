// A plain-text table for terminal output: left-aligned first column, the rest
// right-aligned, columns as wide as their widest cell.
#pragma once

#include <string>
#include <vector>

namespace goodsim::app {

class Table {
 public:
  explicit Table(std::vector<std::string> header) : header_(std::move(header)) {}
  // REQUIRES: cells.size() == header size.
  void add_row(std::vector<std::string> cells);
  std::string render() const;

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

// Three significant figures in the largest fitting unit: "42.0s", "14.9h", "3.2d".
std::string short_duration(double seconds);

}  // namespace goodsim::app
