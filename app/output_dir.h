// The output directory of `goodsim run`: a run rewrites some of its files (summary.json,
// timeseries.csv, and events.jsonl or trace.json.gz when asked) and must not leave an
// earlier run's other files beside them.
#pragma once

#include <filesystem>
#include <functional>
#include <iosfwd>
#include <set>
#include <string>

namespace goodsim::app {

// Removes from `dir` every file or directory an earlier goodsim run may have written there
// (summary.json, timeseries.csv, events.jsonl, trace.json.gz, replications.csv, seed-<n>/,
// and plots/ as analysis/plot_run.py writes it) whose name `rewritten` does not accept, plus
// summary.json and replications.csv in any case: a run writes them last, so a directory
// with one of them always holds one complete run. Other files are left alone. Returns the
// names removed. Throws std::runtime_error naming a file that cannot be removed.
using RewrittenName = std::function<bool(const std::string& name)>;
std::set<std::string> clear_previous_run(const std::filesystem::path& dir,
                                         const RewrittenName& rewritten);

// Tells on `err` which of an earlier run's outputs in `dir` were removed (clear_previous_run)
// because this run does not write them again.
void note_removed(std::ostream& err, const std::filesystem::path& dir,
                  const std::set<std::string>& removed,
                  const RewrittenName& rewritten);

}  // namespace goodsim::app
