#include "app/diff/diff_report.h"

#include <fmt/format.h>

#include <cmath>

#include <nlohmann/json.hpp>

#include "app/sweep/check_report.h"
#include "app/table.h"
#include "sim/core/version.h"
#include "sim/scenario/error.h"

namespace goodsim::app::diff {
namespace {

using nlohmann::ordered_json;
using sweep::kMetrics;

const char* kLegend =
    "change = B - A; 95% CI paired (same seeds) or Welch (unpaired); * significant: beyond "
    "max(3 SE, 0.1% of |A|)";

std::string num(double v, const char* spec = "{:.6g}") {
  return std::isfinite(v) ? fmt::format(fmt::runtime(spec), v) : "-";
}

std::string ci_text(const DiffRow& row) {
  if (!row.lo) return "-";
  return fmt::format("[{:+.3g}, {:+.3g}]", *row.lo, *row.hi);
}

std::string verdict_text(const DiffRow& row) {
  std::string v = row.verdict + (row.significant() ? " *" : "");
  if (!row.fired.empty()) v += " FAIL";
  return v;
}

std::vector<std::string> cells(const DiffRow& row) {
  return {row.group, row.policy, std::string(kMetrics[row.metric].name),
          row.a.n ? num(row.a.mean) : "-", row.b.n ? num(row.b.mean) : "-",
          num(row.change, "{:+.4g}"), ci_text(row), fmt::format("{}", row.n),
          row.paired ? "yes" : "no", verdict_text(row)};
}

const std::vector<std::string> kHeader = {"scenario/point", "policy", "metric", "A", "B",
                                          "change", "95% CI", "n", "paired", "verdict"};

std::string result_line(const DiffResult& r) {
  if (r.rules.empty()) return "no --fail-on rules: exit 0\n";
  if (r.fired() == 0) return fmt::format("diff passed: no rule fired ({} rule(s))\n",
                                         r.rules.size());
  std::string out = fmt::format("diff FAILED: {} row(s) broke a rule:\n", r.fired());
  for (const DiffRow& row : r.rows) {
    if (row.fired.empty()) continue;
    out += fmt::format("  {} / {}: {} change {} ({})\n", row.group, row.policy,
                       kMetrics[row.metric].name, num(row.change, "{:+.4g}"),
                       fmt::join(row.fired, ", "));
  }
  return out;
}

ordered_json number_or_null(double v) { return std::isfinite(v) ? ordered_json(v) : nullptr; }

ordered_json side_json(const Side& s) {
  return {{"path", s.path}, {"kind", s.kind}, {"version", s.version}};
}

ordered_json row_json(const DiffRow& row) {
  return {{"group", row.group},
          {"policy", row.policy},
          {"metric", kMetrics[row.metric].name},
          {"a_mean", row.a.n ? number_or_null(row.a.mean) : nullptr},
          {"a_sd", number_or_null(row.a.sd)},
          {"a_n", row.a.n},
          {"b_mean", row.b.n ? number_or_null(row.b.mean) : nullptr},
          {"b_sd", number_or_null(row.b.sd)},
          {"b_n", row.b.n},
          {"change", number_or_null(row.change)},
          {"ci95_lo", row.lo ? ordered_json(*row.lo) : nullptr},
          {"ci95_hi", row.hi ? ordered_json(*row.hi) : nullptr},
          {"n", row.n},
          {"paired", row.paired},
          {"verdict", row.verdict},
          {"significant", row.significant()},
          {"fired", row.fired}};
}

}  // namespace

DiffFormat diff_format(std::string_view name) {
  if (name == "text") return DiffFormat::kText;
  if (name == "markdown") return DiffFormat::kMarkdown;
  if (name == "json") return DiffFormat::kJson;
  if (name == "junit") return DiffFormat::kJunit;
  throw scenario::ScenarioError(
      "--format", "", fmt::format("expected text, markdown, json or junit, got \"{}\"", name));
}

std::string diff_text(const DiffResult& r) {
  std::string warnings;
  for (const std::string& w : r.warnings) warnings += "WARNING: " + w + "\n";
  Table t(kHeader);
  for (const DiffRow& row : r.rows) t.add_row(cells(row));
  std::string out = fmt::format("A: {} ({})\nB: {} ({})\n\n", r.a.path, r.a.kind, r.b.path,
                                r.b.kind);
  if (!warnings.empty()) out += warnings + "\n";
  out += t.render() + "\n" + kLegend + "\n" + result_line(r);
  return out + warnings;
}

std::string diff_markdown(const DiffResult& r) {
  std::string out = fmt::format("# goodsim diff\n\n- A: `{}` ({})\n- B: `{}` ({})\n", r.a.path,
                                r.a.kind, r.b.path, r.b.kind);
  for (const std::string& w : r.warnings) out += "- **Warning:** " + w + "\n";
  out += "\n| " + fmt::format("{}", fmt::join(kHeader, " | ")) + " |\n|";
  for (size_t i = 0; i < kHeader.size(); ++i) out += i < 3 ? " --- |" : " ---: |";
  out += "\n";
  for (const DiffRow& row : r.rows) {
    std::vector<std::string> c = cells(row);
    for (std::string& s : c) {
      std::string e;
      for (char ch : s) {
        if (ch == '|' || ch == '*') e += '\\';
        e += ch;
      }
      s = std::move(e);
    }
    if (row.significant()) c[9] = "**" + c[9] + "**";
    out += "| " + fmt::format("{}", fmt::join(c, " | ")) + " |\n";
  }
  return out + "\n" + kLegend + ".\n\n" + result_line(r);
}

std::string diff_json(const DiffResult& r, const std::string& command) {
  ordered_json rows = ordered_json::array();
  for (const DiffRow& row : r.rows) rows.push_back(row_json(row));
  ordered_json rules = ordered_json::array();
  for (const FailRule& rule : r.rules) rules.push_back(rule.text);
  const ordered_json doc = {{"format", "goodsim-diff/1"}, {"version", core::kVersion},
                            {"command", command},         {"a", side_json(r.a)},
                            {"b", side_json(r.b)},        {"rules", rules},
                            {"passed", r.fired() == 0},   {"fired", r.fired()},
                            {"warnings", r.warnings},     {"rows", rows}};
  return doc.dump(2) + "\n";
}

std::string diff_junit(const DiffResult& r) {
  std::vector<sweep::JunitCase> cases;
  for (const DiffRow& row : r.rows) {
    std::string failure;
    if (!row.fired.empty()) {
      failure = fmt::format("{} change {} (A {}, B {}, 95% CI {}) broke {}",
                            kMetrics[row.metric].name, num(row.change, "{:+.4g}"),
                            num(row.a.mean), num(row.b.mean), ci_text(row),
                            fmt::join(row.fired, ", "));
    }
    cases.push_back({row.group, row.group + "." + row.policy,
                     std::string(kMetrics[row.metric].name), failure, "fail-on"});
  }
  return sweep::junit_xml("goodsim diff", cases, r.warnings);
}

std::string render_diff(const DiffResult& r, DiffFormat format, const std::string& command) {
  switch (format) {
    case DiffFormat::kMarkdown: return diff_markdown(r);
    case DiffFormat::kJson: return diff_json(r, command);
    case DiffFormat::kJunit: return diff_junit(r);
    case DiffFormat::kText: break;
  }
  return diff_text(r);
}

}  // namespace goodsim::app::diff
