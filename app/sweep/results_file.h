// DIR/results.csv of a sweep: one row per (grid point, seed, policy).
//
// Columns: point, one column per --vary path (named by the path), seed,
// policy, type, then the metrics of metrics.h in order, then fingerprint.
// Numbers are shortest round-trip text; a missing value is an empty cell.
//
// While a sweep runs, finished runs append their rows (ResultsLog: one
// write(2) per run, all its rows complete lines, flushed to the kernel at
// once), in completion order. A kill (even SIGKILL) can thus leave at most one
// incomplete last line, which load_results() drops. At the end the file is
// rewritten atomically in canonical order (point, seed, policy index).
#pragma once

#include <cstdint>
#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

#include "app/sweep/metrics.h"

namespace goodsim::app::sweep {

// What a results file names: the varied paths and, per grid point, the value
// texts and the scenario's policies (names and types, in scenario order).
struct SweepTable {
  struct Point {
    std::vector<std::string> values;  // one per axis
    std::vector<std::string> policies;
    std::vector<std::string> types;
  };
  std::vector<std::string> axis_paths;
  std::vector<Point> points;
};

struct ResultRow {
  size_t point = 0;
  uint64_t seed = 0;
  size_t policy = 0;  // index in the point's policies
  MetricValues metrics;
  std::string fingerprint;  // 16 hex digits, as in summary.json
};

// Canonical order: point, then seed, then policy index.
bool canonical_less(const ResultRow& a, const ResultRow& b);

std::string results_header(const SweepTable& table);
// The row as one CSV line, with its "\n".
std::string format_row(const SweepTable& table, const ResultRow& row);

// Rows of an existing results file, checked against `table` and `seeds`
// (seed must be in [first_seed, first_seed + max_seeds)).
struct LoadedResults {
  std::vector<ResultRow> rows;  // in file order, duplicates of a key removed
  size_t complete_bytes = 0;    // length of the file up to its last complete line
  size_t file_bytes = 0;
};

// Reads `path` (a missing or empty file gives no rows). Throws ScenarioError
// naming the file and line when the header differs (another sweep) or a
// complete row does not parse or does not belong to this sweep.
LoadedResults load_results(const std::filesystem::path& path, const SweepTable& table,
                           uint64_t first_seed, uint64_t max_seeds);

// The append-only results file. Thread-safe.
class ResultsLog {
 public:
  // Opens `path` for appending; truncates it to `keep_bytes` first (dropping
  // an incomplete last line); writes `header` when the file is empty.
  // Throws std::runtime_error on I/O errors.
  ResultsLog(const std::filesystem::path& path, size_t keep_bytes, const std::string& header);
  ~ResultsLog();
  ResultsLog(const ResultsLog&) = delete;
  ResultsLog& operator=(const ResultsLog&) = delete;

  // Appends complete lines with one write(2) (retried if the kernel takes
  // only part). Throws std::runtime_error on I/O errors.
  void append(const std::string& lines);

 private:
  void write_all(const std::string& text);

  std::filesystem::path path_;
  int fd_ = -1;
  std::mutex mutex_;
};

}  // namespace goodsim::app::sweep
