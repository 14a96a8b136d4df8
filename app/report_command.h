// goodsim report DIR: one self-contained HTML file (plots inlined, then tables,
// with the scenario, goodsim version and command recorded) for any goodsim output
// directory: run, run --seeds, sweep, calibrate, diff --out and solve.
//
// The page is drawn by analysis/report.py (matplotlib, pandas), run with
// /usr/bin/python3 -B. The scripts are found in $GOODSIM_ANALYSIS_DIR when it is set
// (and nowhere else), otherwise next to an installed binary
// (BIN/../share/goodsim/analysis), then in the source tree the binary was built from. Exit codes: 0 written, 2 bad input, missing
// scripts or a Python without matplotlib/pandas (with a message saying which).
#pragma once

#include <filesystem>
#include <iosfwd>
#include <string>

namespace goodsim::app {

struct ReportOptions {
  std::string dir;
  std::string out;  // default DIR/report.html
};

// The directory holding report.py; throws ScenarioError saying where it looked.
std::filesystem::path analysis_dir();

int report_command(const ReportOptions& options, std::ostream& out, std::ostream& err);

}  // namespace goodsim::app
