#include "models/failure/trace_replay.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <sstream>
#include <iterator>
#include <map>
#include <optional>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "sim/core/check.h"
#include "sim/scenario/csv_reader.h"
#include "sim/scenario/error.h"
#include "sim/scenario/input_file.h"
#include "sim/scenario/text.h"
#include "sim/scenario/units.h"
#include "sim/scenario/utf8.h"

namespace goodsim::models::failure {
namespace {

using scenario::ScenarioError;
using scenario::trim;

constexpr size_t kNone = static_cast<size_t>(-1);

// The columns a trace may have, in documentation order; the first three are required.
enum Column : size_t { kTime = 0, kDuration = 1, kTarget = 2, kCause = 3, kColumns = 4 };
constexpr std::array<std::string_view, kColumns> kColumnNames = {"time", "duration", "target",
                                                                  "cause"};
constexpr std::array<std::string_view, 4> kTargetKinds = {"chip", "host", "slice", "site"};

// The line being read, for messages: "file: line 7, column 2 (duration): ...".
struct Cursor {
  const std::string& label;
  uint32_t line = 0;

  [[noreturn]] void fail(size_t column, std::string_view name, const std::string& message) const {
    const std::string where = name.empty()
                                  ? fmt::format("line {}, column {}", line, column)
                                  : fmt::format("line {}, column {} ({})", line, column, name);
    throw ScenarioError(label, where, message);
  }
  [[noreturn]] void fail_line(const std::string& message) const {
    throw ScenarioError(label, fmt::format("line {}", line), message);
  }
};

std::vector<std::string> names_of(const auto& list) {
  return std::vector<std::string>(list.begin(), list.end());
}

// Where each column sits in a row (kNone when absent), and the row width.
struct Header {
  std::array<size_t, kColumns> index;
  size_t width = 0;

  std::string_view name_at(size_t position) const {
    for (size_t k = 0; k < kColumns; ++k) {
      if (index[k] == position) return kColumnNames[k];
    }
    return "";
  }
};

Header parse_header(const std::vector<std::string>& fields, const Cursor& at) {
  Header h;
  h.index.fill(kNone);
  h.width = fields.size();
  for (size_t c = 0; c < fields.size(); ++c) {
    const auto it = std::find(kColumnNames.begin(), kColumnNames.end(), fields[c]);
    if (it == kColumnNames.end()) {
      const auto match = scenario::closest_match(fields[c], names_of(kColumnNames));
      at.fail(c + 1, "", fmt::format("unknown column \"{}\" in the header row; {}", fields[c],
                                     match ? fmt::format("did you mean \"{}\"?", *match)
                                           : "expected time, duration, target and "
                                             "optionally cause"));
    }
    const auto k = static_cast<size_t>(it - kColumnNames.begin());
    if (h.index[k] != kNone) at.fail(c + 1, "", fmt::format("column \"{}\" appears twice", *it));
    h.index[k] = c;
  }
  for (size_t k = kTime; k <= kTarget; ++k) {
    if (h.index[k] == kNone) {
      at.fail_line(fmt::format("the header row has no \"{}\" column; expected a header like "
                               "\"time,duration,target,cause\"", kColumnNames[k]));
    }
  }
  return h;
}

// A duration with units ("90m", "1h30m") or a plain number of seconds.
core::Duration parse_span(std::string_view text) {
  double seconds = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, seconds);
  if (ec != std::errc() || ptr != end) return scenario::parse_duration(text);
  if (!std::isfinite(seconds) || seconds < 0) {
    throw std::invalid_argument(fmt::format("expected a finite duration >= 0, got {}", text));
  }
  return scenario::duration_from_json(nlohmann::json(seconds));
}

uint64_t parse_id(std::string_view kind, std::string_view text) {
  uint64_t id = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, id);
  if (text.empty() || ec != std::errc() || ptr != end) {
    throw std::invalid_argument(
        fmt::format("expected a whole-number id after \"{}:\", got \"{}\"", kind, text));
  }
  return id;
}

// A site by name first, else by index.
uint64_t parse_site(std::string_view text, const cluster::Layout& layout) {
  std::vector<std::string> names;
  for (cluster::SiteId s = 0; s < layout.sites(); ++s) {
    if (layout.site_name(s) == text) return s;
    names.push_back(layout.site_name(s));
  }
  if (!text.empty() && text.find_first_not_of("0123456789") == std::string_view::npos) {
    return parse_id("site", text);
  }
  const auto match = scenario::closest_match(text, names);
  throw std::invalid_argument(
      fmt::format("unknown site \"{}\"; {}", text,
                  match ? fmt::format("did you mean \"{}\"?", *match)
                        : fmt::format("the sites are \"{}\"", fmt::join(names, "\", \""))));
}

void parse_target(std::string_view text, const cluster::Layout& layout, TraceOutage& out) {
  const size_t colon = text.find(':');
  if (colon == std::string_view::npos) {
    throw std::invalid_argument(fmt::format(
        "expected a target like chip:12, host:3, slice:0 or site:NAME, got \"{}\"", text));
  }
  const std::string_view kind = trim(text.substr(0, colon));
  const std::string_view value = trim(text.substr(colon + 1));
  const auto it = std::find(kTargetKinds.begin(), kTargetKinds.end(), kind);
  if (it == kTargetKinds.end()) {
    const auto match = scenario::closest_match(kind, names_of(kTargetKinds));
    throw std::invalid_argument(
        fmt::format("unknown target kind \"{}\"; {}", kind,
                    match ? fmt::format("did you mean \"{}\"?", *match)
                          : std::string("expected chip, host, slice or site")));
  }
  out.domain = static_cast<cluster::Domain>(it - kTargetKinds.begin());
  const uint64_t id = out.domain == cluster::Domain::kSite ? parse_site(value, layout)
                                                           : parse_id(kind, value);
  const uint64_t count = layout.count(out.domain);
  if (id >= count) {
    throw std::invalid_argument(fmt::format("{} {} is out of range: the cluster has {} {}s "
                                            "(ids 0 to {})", kind, id, count, kind, count - 1));
  }
  out.id = static_cast<uint32_t>(id);
}

class TraceParser {
 public:
  TraceParser(const std::string& label, const cluster::Layout& layout)
      : at_{label}, layout_(layout) {}

  Trace parse(std::istream& in) {
    for (const scenario::CsvRecord& record : read_records(in)) {
      at_.line = static_cast<uint32_t>(record.line);
      if (!header_) {
        header_ = parse_header(record.fields, at_);
      } else {
        trace_.outages.push_back(parse_row(record.fields));
      }
    }
    if (!header_) {
      throw ScenarioError(at_.label, "", "empty trace: expected a header row "
                                         "\"time,duration,target,cause\" and one row per outage");
    }
    std::stable_sort(trace_.outages.begin(), trace_.outages.end(),
                     [](const TraceOutage& a, const TraceOutage& b) { return a.time < b.time; });
    return std::move(trace_);
  }

 private:
  // The trace's records: comma-separated, blanks around fields ignored, '#'
  // and blank lines skipped, a quoted field may hold commas (not line breaks).
  std::vector<scenario::CsvRecord> read_records(std::istream& in) {
    const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    scenario::CsvOptions syntax;
    syntax.trim_blanks = true;
    syntax.comments = true;
    try {
      return scenario::read_csv(text, syntax).records;
    } catch (const scenario::CsvSyntaxError& e) {
      at_.line = static_cast<uint32_t>(e.line());
      at_.fail(e.column(), "", e.what());
    }
  }

  // Runs `parse` on column k of the row; its std::invalid_argument becomes a
  // ScenarioError at this line and column.
  template <class Parse>
  auto field(const std::vector<std::string>& fields, Column k, Parse parse) const {
    const size_t position = header_->index[k];
    try {
      return parse(std::string_view(fields[position]));
    } catch (const std::invalid_argument& e) {
      at_.fail(position + 1, kColumnNames[k], e.what());
    }
  }

  TraceOutage parse_row(const std::vector<std::string>& fields) {
    const Header& h = *header_;
    if (fields.size() < h.width) {
      at_.fail(fields.size() + 1, h.name_at(fields.size()),
               fmt::format("missing field: the header has {} columns, this row {}", h.width,
                           fields.size()));
    }
    if (fields.size() > h.width) {
      at_.fail(h.width + 1, "", fmt::format("extra field \"{}\": the header has only {} columns "
                                            "(quote a cause that contains commas)",
                                            fields[h.width], h.width));
    }
    TraceOutage out;
    out.line = at_.line;
    out.time = field(fields, kTime, [](std::string_view t) { return parse_span(t); });
    out.duration = field(fields, kDuration, [](std::string_view t) { return parse_span(t); });
    field(fields, kTarget, [&](std::string_view t) {
      parse_target(t, layout_, out);
      return 0;
    });
    if (h.index[kCause] != kNone) out.cause = intern(fields[h.index[kCause]], h.index[kCause]);
    return out;
  }

  uint32_t intern(const std::string& cause, size_t position) {
    const auto [it, added] =
        cause_index_.emplace(cause, static_cast<uint32_t>(trace_.causes.size()));
    if (added) {
      if (!scenario::is_valid_utf8(cause)) {
        cause_index_.erase(it);
        at_.fail(position + 1, "cause", "the cause is not valid UTF-8 text");
      }
      trace_.causes.push_back(cause);
    }
    return it->second;
  }

  Cursor at_;
  const cluster::Layout& layout_;
  std::optional<Header> header_;
  Trace trace_;
  std::map<std::string, uint32_t, std::less<>> cause_index_{{"", 0}};
};

}  // namespace

Trace parse_trace(std::istream& in, const std::string& label, const cluster::Layout& layout) {
  return TraceParser(label, layout).parse(in);
}

TraceReplayConfig TraceReplayConfig::from_json(scenario::ObjectReader& r,
                                               const ParseContext& ctx) {
  TraceReplayConfig c;
  c.file = r.string("file", "CSV failure trace (docs/trace-format.md); a relative name is "
                            "relative to the scenario file's directory");
  if (r.describing() || ctx.layout == nullptr) return c;
  if (c.file.empty()) r.fail("file", "expected the name of a CSV trace file, got \"\"");
  const std::filesystem::path path = ctx.resolve(c.file);
  std::string text;
  try {
    text = scenario::read_input(path.string(), "trace file");
  } catch (const scenario::ScenarioError& e) {
    r.fail("file", fmt::format("trace file \"{}\": {}{}", path.string(), e.message(),
                               std::filesystem::path(c.file).is_relative()
                                   ? " (a relative name is relative to the scenario file's "
                                     "directory)"
                                   : ""));
  }
  std::istringstream in(std::move(text));
  c.trace = std::make_shared<const Trace>(parse_trace(in, path.string(), *ctx.layout));
  return c;
}

TraceReplay::TraceReplay(TraceReplayConfig config, std::string stream)
    : ConfiguredModel(std::move(config), std::move(stream)) {
  GOODSIM_CHECK(config_.trace != nullptr);
}

void TraceReplay::start(RunContext& ctx) {
  bind(ctx);  // the replay draws nothing; the stream names its handlers
  // Intern every cause now, in file order, so cause ids do not depend on when rows fire.
  cause_ids_.clear();
  for (const std::string& cause : config_.trace->causes) {
    cause_ids_.push_back(cause.empty() ? cluster::kUnspecifiedCause
                                       : ctx.cluster.intern_cause(cause));
  }
  failure_handler_ =
      add_handler("failure", [this](const core::Event& e) { on_failure(static_cast<size_t>(e.a)); });
  repair_handler_ =
      add_handler("repair", [this](const core::Event& e) { on_repair(static_cast<size_t>(e.a)); });
  schedule_failure(0);
}

// Rows are chained: one pending failure at a time keeps the queue small
// however long the trace; equal times keep file order through the queue's seq.
void TraceReplay::schedule_failure(size_t index) {
  const std::vector<TraceOutage>& outages = config_.trace->outages;
  if (index >= outages.size()) return;
  ctx_->sim.schedule_at(core::SimTime::zero() + outages[index].time, core::kBandFailure,
                        failure_handler_, index);
}

void TraceReplay::on_failure(size_t index) {
  const TraceOutage& o = config_.trace->outages[index];
  const cluster::CauseId cause = cause_ids_[o.cause];
  ++failures_;
  ctx_->log("failure", [&] {
    return nlohmann::json{{"domain", cluster::domain_name(o.domain)}, {"id", o.id},
                          {"cause", ctx_->cluster.cause_name(cause)}, {"trace_line", o.line}};
  });
  ctx_->cluster.fail(o.domain, o.id, ctx_->sim.now(), cause);
  ctx_->sim.schedule_in(o.duration, core::kBandRepair, repair_handler_, index);
  schedule_failure(index + 1);
}

void TraceReplay::on_repair(size_t index) {
  const TraceOutage& o = config_.trace->outages[index];
  ctx_->log("repair", [&] {
    return nlohmann::json{{"domain", cluster::domain_name(o.domain)}, {"id", o.id}};
  });
  ctx_->cluster.repair(o.domain, o.id, ctx_->sim.now());
}


ResourceUse TraceReplayConfig::expected_use(const cluster::Layout& /*layout*/,
                                            core::Duration /*horizon*/) const {
  return {2 * static_cast<double>(trace->outages.size()), 0};
}

}  // namespace goodsim::models::failure
