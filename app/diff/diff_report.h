// The results of `goodsim diff` as a text table, Markdown, JSON or JUnit XML
// (`--format text|markdown|json|junit`, docs/report.md).
#pragma once

#include <string>
#include <string_view>

#include "app/diff/diff.h"

namespace goodsim::app::diff {

enum class DiffFormat { kText, kMarkdown, kJson, kJunit };

// "text", "markdown", "json" or "junit"; throws ScenarioError (at --format) otherwise.
DiffFormat diff_format(std::string_view name);

// The table with warnings before and after it and a last line naming the rules that fired.
std::string diff_text(const DiffResult& r);
// A Markdown document: the inputs, warnings, and one table per group.
std::string diff_markdown(const DiffResult& r);
// {"format": "goodsim-diff/1", "version", "command", "a": {"path", "kind", "version"}, "b",
//  "rules", "passed", "fired", "warnings", "rows": [{"group", "policy", "metric", "a_mean",
//  "a_sd", "a_n", "b_mean", "b_sd", "b_n", "change", "ci95_lo", "ci95_hi", "n", "paired",
//  "verdict", "significant", "fired"}]}; numbers that do not exist are null.
std::string diff_json(const DiffResult& r, const std::string& command);
// One <testsuite> per group, one <testcase> per policy and metric (classname
// "group.policy"); <failure> when a --fail-on rule fired on it.
std::string diff_junit(const DiffResult& r);

std::string render_diff(const DiffResult& r, DiffFormat format, const std::string& command);

}  // namespace goodsim::app::diff
