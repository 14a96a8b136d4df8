// The subcommands of the goodsim CLI. Each returns the process exit code
// (0 ok, 1 a check failed, 2 bad input) and writes user-facing text to `out`
// and `err`; bad input surfaces as scenario::ScenarioError, which main() turns
// into a message and exit code 2.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "app/run_options.h"
namespace goodsim::scenario {
class ScenarioError;
}

namespace goodsim::app {

// `err` gets the progress line of long runs (on a terminal only).
int run_command(const RunOptions& options, std::ostream& out, std::ostream& err);
// Validates each file (with the --set overrides) and prints its resource estimate; a
// file whose estimate exceeds `limits` is an error, as it would be for run.
int validate_command(const std::vector<std::string>& files, const std::vector<std::string>& sets,
                     const LimitOptions& limits, std::ostream& out, std::ostream& err);
// `format`: "text" (wrapped to `width`, default the terminal's), "markdown"
// (docs/models.md) or "json" (a JSON Schema of the scenario format).
int list_models_command(std::ostream& out, const std::string& format = "text",
                        std::optional<size_t> width = std::nullopt);

// Prints every error `e` stands for, one "error: ..." line each.
void print_errors(std::ostream& err, const scenario::ScenarioError& e);

}  // namespace goodsim::app
