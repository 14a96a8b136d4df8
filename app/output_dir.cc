#include "app/output_dir.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>
#include <ostream>
#include <vector>
#include <stdexcept>
#include <string_view>
#include <system_error>

namespace goodsim::app {
namespace {

constexpr std::array<std::string_view, 5> kRunFiles = {
    "summary.json", "timeseries.csv", "events.jsonl", "trace.json.gz", "replications.csv"};
constexpr std::array<std::string_view, 3> kPlots = {"goodput.png", "badput.png", "loss.png"};

// "seed-<digits>": the directory of one replication (run --seeds).
bool is_seed_dir(const std::string& name) {
  if (!name.starts_with("seed-") || name.size() == 5) return false;
  return name.find_first_not_of("0123456789", 5) == std::string::npos;
}

void remove_path(const std::filesystem::path& p, bool recursive) {
  std::error_code ec;
  if (recursive) {
    std::filesystem::remove_all(p, ec);
  } else {
    std::filesystem::remove(p, ec);
  }
  if (ec) {
    throw std::runtime_error(fmt::format("cannot remove {} (left by an earlier run): {}",
                                         p.string(), ec.message()));
  }
}

// The plots of the earlier run: they show its figures, not the coming run's.
bool clear_plots(const std::filesystem::path& dir) {
  const std::filesystem::path plots = dir / "plots";
  std::error_code ec;
  if (!std::filesystem::is_directory(plots, ec)) return false;
  for (std::string_view name : kPlots) remove_path(plots / name, false);
  if (std::filesystem::is_empty(plots, ec)) remove_path(plots, false);
  return true;
}

}  // namespace

std::set<std::string> clear_previous_run(const std::filesystem::path& dir,
                                         const RewrittenName& rewritten) {
  std::set<std::string> removed;
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) return removed;
  for (std::string_view name : kRunFiles) {
    const std::string n(name);
    const bool written_last = n == "summary.json" || n == "replications.csv";
    if (rewritten(n) && !written_last) continue;
    if (std::filesystem::exists(dir / n, ec)) {
      remove_path(dir / n, false);
      removed.insert(n);
    }
  }
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (is_seed_dir(name) && !rewritten(name) && it->is_directory()) {
      removed.insert(name);
    }
  }
  for (const std::string& name : removed) {
    if (is_seed_dir(name)) remove_path(dir / name, true);
  }
  if (clear_plots(dir)) removed.insert("plots");
  return removed;
}

void note_removed(std::ostream& err, const std::filesystem::path& dir,
                  const std::set<std::string>& removed,
                  const RewrittenName& rewritten) {
  std::vector<std::string> gone;
  for (const std::string& name : removed) {
    if (!rewritten(name)) gone.push_back((dir / name).string());
  }
  if (gone.empty()) return;
  err << fmt::format("note: removed the earlier run's {} (not written by this run)\n",
                     fmt::join(gone, ", "));
}

}  // namespace goodsim::app
