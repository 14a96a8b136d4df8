// The results of `goodsim check` as text (a table), JSON or JUnit XML, so CI
// systems can show one result per scenario, policy and metric
// (`--format text|json|junit`, docs/ci.md).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "app/sweep/compare.h"
#include "app/sweep/stats.h"

namespace goodsim::app::sweep {

// One comparison: a metric of a policy of a scenario, baseline vs now.
struct CheckRow {
  std::string scenario, policy;
  size_t metric = 0;      // index in kMetrics
  double baseline = 0;    // the baseline's mean
  Estimate now;           // over this check's seeds
  Verdict verdict;
};

struct CheckReport {
  std::vector<CheckRow> rows;
  std::vector<std::string> warnings;  // e.g. pairing lost
  size_t seeds = 0;
  std::string baseline;  // the baseline file

  size_t failed() const;
};

enum class CheckFormat { kText, kJson, kJunit };

// `text` with & < > " ' as XML entities (JUnit files).
std::string xml_escape(std::string_view text);

// One JUnit test case; passed when `failure` is empty (else its message, of kind `type`).
struct JunitCase {
  std::string suite, classname, name, failure, type;
};
// A JUnit XML document named `name`: one <testsuite> per suite (sorted by name) with its
// cases in order, `warnings` in each suite's <system-err>.
std::string junit_xml(std::string_view name, const std::vector<JunitCase>& cases,
                      const std::vector<std::string>& warnings);

// "text", "json" or "junit"; throws ScenarioError (at --format) otherwise.
CheckFormat check_format(std::string_view name);

// The table and the pass/fail line (warnings first and last, loudly).
std::string check_text(const CheckReport& r);
// {"passed", "failed", "comparisons", "seeds", "baseline", "warnings",
//  "results": [{"scenario", "policy", "metric", "baseline", "now", "now_ci95_lo",
//  "now_ci95_hi", "n", "change", "allowed", "rule", "verdict", "passed"}]}; the CI
// bounds are clamped into the metric's range and null with fewer than 2 runs.
std::string check_json(const CheckReport& r);
// One <testsuite> per scenario, one <testcase> per policy and metric
// (classname "scenario.policy", name the metric), <failure> when it regressed;
// warnings go to each suite's <system-err>.
std::string check_junit(const CheckReport& r);

}  // namespace goodsim::app::sweep
