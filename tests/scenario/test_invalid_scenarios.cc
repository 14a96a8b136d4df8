// Every scenarios/invalid/NAME.json must be rejected with the message fragment
// recorded in NAME.expected; every shipped scenario must validate. Both go through the
// resource limits `goodsim run` applies by default, as `goodsim validate` does.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "models/resource_estimate.h"
#include "sim/scenario/error.h"
#include "sim/scenario/json_file.h"
#include "tests/support/scenarios.h"

namespace goodsim::scenario {
namespace {

const std::filesystem::path kScenarios = std::filesystem::path(GOODSIM_SOURCE_DIR) / "scenarios";

std::string read_expected(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::string line;
  std::getline(in, line);
  return line;
}

void validate(const std::filesystem::path& f) {
  models::PreparedScenario p = testing::prepare_doc(load_json_file(f.string()), f.string());
  models::enforce_limits(p, models::estimate_resources(p), models::ResourceLimits{});
}

std::vector<std::filesystem::path> json_files(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() == ".json") out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST_CASE("every invalid scenario fails with its recorded message", "[scenario][invalid]") {
  const auto files = json_files(kScenarios / "invalid");
  REQUIRE(files.size() >= 15);
  for (const auto& f : files) {
    const auto expected_file = std::filesystem::path(f).replace_extension(".expected");
    INFO(f.filename().string());
    REQUIRE(std::filesystem::exists(expected_file));
    const std::string expected = read_expected(expected_file);
    REQUIRE_FALSE(expected.empty());
    try {
      validate(f);
      FAIL("accepted an invalid scenario");
    } catch (const ScenarioError& e) {
      INFO("message: " << e.what());
      CHECK(std::string(e.what()).find(expected) != std::string::npos);
    }
  }
}

TEST_CASE("every shipped scenario validates", "[scenario]") {
  const auto files = json_files(kScenarios);
  REQUIRE_FALSE(files.empty());
  for (const auto& f : files) {
    INFO(f.filename().string());
    CHECK_NOTHROW(validate(f));
  }
}

}  // namespace
}  // namespace goodsim::scenario
