#include "app/sweep/check_report.h"

#include <fmt/format.h>

#include <cmath>
#include <map>

#include <nlohmann/json.hpp>

#include "app/sweep/metrics.h"
#include "app/table.h"
#include "sim/scenario/error.h"

namespace goodsim::app::sweep {
namespace {

using nlohmann::json;

json number_or_null(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

std::string summary_line(const CheckReport& r) {
  const size_t failed = r.failed();
  if (failed == 0) {
    return fmt::format("check passed: {} comparison(s), {} seeds, baseline {}\n", r.rows.size(),
                       r.seeds, r.baseline);
  }
  return fmt::format("check FAILED: {} of {} comparison(s) regressed ({} seeds, baseline {})\n",
                     failed, r.rows.size(), r.seeds, r.baseline);
}

// "what regressed": the sentence of a failed row.
std::string failure_text(const CheckRow& row) {
  return fmt::format("{} {}: baseline {:.6g}, now {:.6g}, change {:+.3g}, allowed {:.3g} ({})",
                     kMetrics[row.metric].name, verdict_name(row.verdict.kind), row.baseline,
                     row.now.mean, row.verdict.change, row.verdict.allowed, row.verdict.rule);
}

}  // namespace

std::string xml_escape(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += c;
    }
  }
  return out;
}

size_t CheckReport::failed() const {
  size_t n = 0;
  for (const CheckRow& row : rows) n += row.verdict.failed() ? 1 : 0;
  return n;
}

CheckFormat check_format(std::string_view name) {
  if (name == "text") return CheckFormat::kText;
  if (name == "json") return CheckFormat::kJson;
  if (name == "junit") return CheckFormat::kJunit;
  throw scenario::ScenarioError("--format", "",
                                fmt::format("expected text, json or junit, got \"{}\"", name));
}

std::string check_text(const CheckReport& r) {
  std::string warnings;
  for (const std::string& w : r.warnings) warnings += "WARNING: " + w + "\n";
  Table t({"scenario", "policy", "metric", "baseline", "now", "change", "allowed", "verdict"});
  for (const CheckRow& row : r.rows) {
    const Verdict& v = row.verdict;
    t.add_row({row.scenario, row.policy, std::string(kMetrics[row.metric].name),
               fmt::format("{:.6g}", row.baseline),
               row.now.n ? fmt::format("{:.6g}", row.now.mean) : "-",
               row.now.n ? fmt::format("{:+.3g}", v.change) : "-",
               fmt::format("{:.3g} ({})", v.allowed, v.rule), verdict_name(v.kind)});
  }
  std::string out = warnings.empty() ? "" : warnings + "\n";
  out += t.render() + "\n" + summary_line(r);
  return out + warnings;
}

std::string check_json(const CheckReport& r) {
  json results = json::array();
  for (const CheckRow& row : r.rows) {
    const bool ci = row.now.n >= 2;
    const auto [lo, hi] = ci ? ci_bounds(row.now, row.metric, false) : std::pair{0.0, 0.0};
    results.push_back({{"scenario", row.scenario},
                       {"policy", row.policy},
                       {"metric", kMetrics[row.metric].name},
                       {"baseline", row.baseline},
                       {"now", row.now.n ? number_or_null(row.now.mean) : json(nullptr)},
                       {"now_ci95_lo", ci ? json(lo) : json(nullptr)},
                       {"now_ci95_hi", ci ? json(hi) : json(nullptr)},
                       {"n", row.now.n},
                       {"change", number_or_null(row.verdict.change)},
                       {"allowed", row.verdict.allowed},
                       {"rule", row.verdict.rule},
                       {"verdict", verdict_name(row.verdict.kind)},
                       {"passed", !row.verdict.failed()}});
  }
  const json doc = {{"passed", r.failed() == 0}, {"failed", r.failed()},
                    {"comparisons", r.rows.size()}, {"seeds", r.seeds},
                    {"baseline", r.baseline},   {"warnings", r.warnings},
                    {"results", results}};
  return doc.dump(2) + "\n";
}

std::string junit_xml(std::string_view name, const std::vector<JunitCase>& cases,
                      const std::vector<std::string>& warnings) {
  std::map<std::string, std::vector<const JunitCase*>> suites;  // sorted by name
  size_t failures = 0;
  for (const JunitCase& c : cases) {
    suites[c.suite].push_back(&c);
    failures += c.failure.empty() ? 0 : 1;
  }
  std::string err;
  for (const std::string& w : warnings) err += xml_escape("WARNING: " + w) + "\n";
  std::string out = fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<testsuites name=\"{}\" tests=\"{}\" failures=\"{}\">\n",
      xml_escape(name), cases.size(), failures);
  for (const auto& [suite, members] : suites) {
    size_t failed = 0;
    for (const JunitCase* c : members) failed += c->failure.empty() ? 0 : 1;
    out += fmt::format("  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\">\n",
                       xml_escape(suite), members.size(), failed);
    for (const JunitCase* c : members) {
      out += fmt::format("    <testcase classname=\"{}\" name=\"{}\"", xml_escape(c->classname),
                         xml_escape(c->name));
      if (c->failure.empty()) {
        out += "/>\n";
        continue;
      }
      const std::string text = xml_escape(c->failure);
      out += fmt::format(">\n      <failure message=\"{}\" type=\"{}\">{}</failure>\n"
                         "    </testcase>\n",
                         text, xml_escape(c->type), text);
    }
    if (!err.empty()) out += "    <system-err>" + err + "</system-err>\n";
    out += "  </testsuite>\n";
  }
  return out + "</testsuites>\n";
}

std::string check_junit(const CheckReport& r) {
  std::vector<JunitCase> cases;
  for (const CheckRow& row : r.rows) {
    cases.push_back({row.scenario, row.scenario + "." + row.policy,
                     std::string(kMetrics[row.metric].name),
                     row.verdict.failed() ? failure_text(row) : "",
                     verdict_name(row.verdict.kind)});
  }
  return junit_xml("goodsim check", cases, r.warnings);
}

}  // namespace goodsim::app::sweep
