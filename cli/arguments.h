// Command-line argument checks shared by the subcommands, with short messages that repeat
// what the user typed ("--seeds: expected a whole number >= 1, got 0"), and the hint for a
// mistyped subcommand.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace goodsim::cli {

// A count of at least 1 written as plain decimal digits (--seeds).
CLI::Validator count_validator();
// A seed: plain decimal digits, 0 to scenario::kMaxSeed (--seed). Rejects "-1" before
// CLI11 would convert it to 2^64 - 1.
CLI::Validator seed_validator();

// When `word` (the first argument) is not one of `commands` and is not an option, the
// message for it: `unknown command "runn"; did you mean "run"?`, or the list of commands
// when none is close. nullopt for an option or a known command.
std::optional<std::string> unknown_command_message(const std::string& word,
                                                   const std::vector<std::string>& commands);

// The names of `app`'s subcommands, in the order they were added.
std::vector<std::string> command_names(const CLI::App& app);

}  // namespace goodsim::cli
