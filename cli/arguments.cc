#include "cli/arguments.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdint>

#include "sim/scenario/error.h"
#include "sim/scenario/scenario.h"

namespace goodsim::cli {
namespace {

// `text` as a plain decimal number up to `max`; nullopt for anything else ("-1", "1e3",
// "0x10", "", or a value above max).
std::optional<uint64_t> parse_plain(const std::string& text, uint64_t max) {
  if (text.empty() || text.size() > 20) return std::nullopt;
  uint64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    const auto digit = static_cast<uint64_t>(c - '0');
    if (value > (max - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
  }
  return value;
}

// What the user typed, quoted and shortened for a message.
std::string typed(const std::string& text) {
  return fmt::format("\"{}\"", scenario::shorten(text, 40));
}

}  // namespace

CLI::Validator count_validator() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const auto n = parse_plain(text, UINT64_MAX);
        if (n && *n >= 1) return "";
        return "expected a whole number >= 1, got " + typed(text);
      },
      "N >= 1", "count");
}

CLI::Validator seed_validator() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        if (parse_plain(text, scenario::kMaxSeed)) return "";
        return "expected a seed from 0 to 2^63 - 1, got " + typed(text);
      },
      "SEED", "seed");
}

std::optional<std::string> unknown_command_message(const std::string& word,
                                                   const std::vector<std::string>& commands) {
  if (word.empty() || word.front() == '-') return std::nullopt;
  if (std::find(commands.begin(), commands.end(), word) != commands.end()) return std::nullopt;
  if (const auto match = scenario::closest_match(word, commands)) {
    return fmt::format("unknown command {}; did you mean \"{}\"?", typed(word), *match);
  }
  return fmt::format("unknown command {}; the commands are {} (goodsim --help)", typed(word),
                     fmt::join(commands, ", "));
}

std::vector<std::string> command_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) names.push_back(sub->get_name());
  return names;
}

}  // namespace goodsim::cli
