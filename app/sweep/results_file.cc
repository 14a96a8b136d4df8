#include "app/sweep/results_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <tuple>

#include "app/sweep/csv.h"
#include "sim/scenario/error.h"
#include "sim/scenario/text.h"

namespace goodsim::app::sweep {
namespace {

std::vector<std::string> header_fields(const SweepTable& table) {
  std::vector<std::string> h = {"point"};
  h.insert(h.end(), table.axis_paths.begin(), table.axis_paths.end());
  h.insert(h.end(), {"seed", "policy", "type"});
  for (const MetricInfo& m : kMetrics) h.emplace_back(m.name);
  h.emplace_back("fingerprint");
  return h;
}

// Parses the text of a whole non-negative integer, or nullopt.
std::optional<uint64_t> parse_uint(const std::string& text) {
  return scenario::parse_digits(text, 19);
}

class RowParser {
 public:
  RowParser(const SweepTable& table, std::string file, uint64_t first_seed, uint64_t max_seeds)
      : table_(table), file_(std::move(file)), first_seed_(first_seed), max_seeds_(max_seeds) {}

  ResultRow parse(const CsvRecord& rec) const {
    const size_t axes = table_.axis_paths.size();
    if (rec.fields.size() != axes + 5 + kMetricCount) {
      fail(rec,
           fmt::format("expected {} fields, got {}", axes + 5 + kMetricCount, rec.fields.size()));
    }
    ResultRow row;
    row.point = point_of(rec);
    const SweepTable::Point& p = table_.points[row.point];
    for (size_t a = 0; a < axes; ++a) {
      if (rec.fields[1 + a] != p.values[a]) {
        fail(rec, fmt::format("{} is \"{}\", but grid point {} has {}", table_.axis_paths[a],
                              rec.fields[1 + a], row.point, p.values[a]));
      }
    }
    row.seed = seed_of(rec, rec.fields[1 + axes]);
    row.policy = policy_of(rec, p, rec.fields[2 + axes], rec.fields[3 + axes]);
    for (size_t m = 0; m < kMetricCount; ++m)
      row.metrics[m] = metric_of(rec, m, rec.fields[4 + axes + m]);
    row.fingerprint = rec.fields.back();
    if (row.fingerprint.size() != 16 ||
        row.fingerprint.find_first_not_of("0123456789abcdef") != std::string::npos) {
      fail(rec, fmt::format("fingerprint: expected 16 hex digits, got \"{}\"", row.fingerprint));
    }
    return row;
  }

  [[noreturn]] void fail(const CsvRecord& rec, const std::string& message) const {
    throw scenario::ScenarioError(file_, fmt::format("line {}", rec.line),
                                  message + "; the file does not belong to this sweep");
  }

 private:
  size_t point_of(const CsvRecord& rec) const {
    const auto point = parse_uint(rec.fields[0]);
    if (!point || *point >= table_.points.size()) {
      fail(rec, fmt::format("point: expected 0 to {}, got \"{}\"", table_.points.size() - 1,
                            rec.fields[0]));
    }
    return static_cast<size_t>(*point);
  }

  uint64_t seed_of(const CsvRecord& rec, const std::string& text) const {
    const auto seed = parse_uint(text);
    if (!seed || *seed < first_seed_ || *seed - first_seed_ >= max_seeds_) {
      fail(rec, fmt::format("seed: expected {} to {}, got \"{}\"", first_seed_,
                            first_seed_ + max_seeds_ - 1, text));
    }
    return *seed;
  }

  size_t policy_of(const CsvRecord& rec, const SweepTable::Point& p, const std::string& name,
                   const std::string& type) const {
    for (size_t i = 0; i < p.policies.size(); ++i) {
      if (p.policies[i] == name && p.types[i] == type) return i;
    }
    fail(rec, fmt::format("no policy \"{}\" of type \"{}\" in this grid point", name, type));
  }

  std::optional<double> metric_of(const CsvRecord& rec, size_t m, const std::string& text) const {
    if (text.empty()) return std::nullopt;
    const auto v = parse_number(text);
    if (!v) fail(rec, fmt::format("{}: expected a number, got \"{}\"", kMetrics[m].name, text));
    return v;
  }

  const SweepTable& table_;
  std::string file_;
  uint64_t first_seed_, max_seeds_;
};

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw scenario::ScenarioError(path.string(), "", "cannot read the file");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

bool canonical_less(const ResultRow& a, const ResultRow& b) {
  return std::tie(a.point, a.seed, a.policy) < std::tie(b.point, b.seed, b.policy);
}

std::string results_header(const SweepTable& table) {
  return csv_join(header_fields(table)) + "\n";
}

std::string format_row(const SweepTable& table, const ResultRow& row) {
  const SweepTable::Point& p = table.points.at(row.point);
  std::vector<std::string> f = {fmt::format("{}", row.point)};
  f.insert(f.end(), p.values.begin(), p.values.end());
  f.insert(f.end(),
           {fmt::format("{}", row.seed), p.policies.at(row.policy), p.types.at(row.policy)});
  for (const auto& v : row.metrics) f.push_back(format_number(v));
  f.push_back(row.fingerprint);
  return csv_join(f) + "\n";
}

LoadedResults load_results(const std::filesystem::path& path, const SweepTable& table,
                           uint64_t first_seed, uint64_t max_seeds) {
  LoadedResults out;
  if (!std::filesystem::exists(path)) return out;
  const std::string text = read_file(path);
  out.file_bytes = text.size();
  std::vector<CsvRecord> records;
  try {
    records = parse_csv(text, out.complete_bytes);
  } catch (const scenario::CsvSyntaxError& e) {
    throw scenario::ScenarioError(path.string(), fmt::format("line {}, column {}", e.line(),
                                                             e.column()), e.what());
  }
  if (records.empty()) return out;
  const RowParser parser(table, path.string(), first_seed, max_seeds);
  if (records[0].fields != header_fields(table)) {
    parser.fail(records[0], "the header differs from this sweep's columns");
  }
  std::set<std::tuple<size_t, uint64_t, size_t>> seen;
  for (size_t i = 1; i < records.size(); ++i) {
    ResultRow row = parser.parse(records[i]);
    if (seen.insert({row.point, row.seed, row.policy}).second) out.rows.push_back(std::move(row));
  }
  return out;
}

ResultsLog::ResultsLog(const std::filesystem::path& path, size_t keep_bytes,
                       const std::string& header)
    : path_(path) {
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd_ < 0)
    throw std::runtime_error("cannot open " + path.string() + ": " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd_, &st) != 0 || (static_cast<size_t>(st.st_size) > keep_bytes &&
                                 ::ftruncate(fd_, static_cast<off_t>(keep_bytes)) != 0)) {
    const std::string why = std::strerror(errno);
    ::close(fd_);
    throw std::runtime_error("cannot prepare " + path.string() + " for appending: " + why);
  }
  if (keep_bytes == 0) write_all(header);
}

ResultsLog::~ResultsLog() {
  if (fd_ >= 0) ::close(fd_);
}

void ResultsLog::append(const std::string& lines) {
  const std::lock_guard<std::mutex> lock(mutex_);
  write_all(lines);
}

void ResultsLog::write_all(const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd_, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      throw std::runtime_error("cannot append to " + path_.string() + ": " + std::strerror(errno));
    done += static_cast<size_t>(n);
  }
}

}  // namespace goodsim::app::sweep
