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

// The fragments the message must contain: one per non-empty line (several
// when validation reports several errors).
std::vector<std::string> read_expected(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) out.push_back(line);
  }
  return out;
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
    const std::vector<std::string> expected = read_expected(expected_file);
    REQUIRE_FALSE(expected.empty());
    try {
      validate(f);
      FAIL("accepted an invalid scenario");
    } catch (const ScenarioError& e) {
      INFO("message: " << e.what());
      for (const std::string& fragment : expected) {
        CHECK(std::string(e.what()).find(fragment) != std::string::npos);
      }
    }
  }
}

TEST_CASE("validation lists every error it finds, each with file and path", "[scenario]") {
  const auto f = kScenarios / "invalid" / "several_errors.json";
  try {
    validate(f);
    FAIL("accepted an invalid scenario");
  } catch (const ScenarioError& e) {
    const std::vector<ScenarioError> all = e.errors();
    REQUIRE(all.size() == 5);
    for (const ScenarioError& one : all) CHECK(one.file() == f.string());
    CHECK(all[0].path() == "horizon");
    CHECK(e.path() == "horizon");  // the first error's, as before
    CHECK(e.lines().size() == 5);
  }
}

TEST_CASE("validation stops listing at 20 errors and says how many more", "[scenario]") {
  nlohmann::json doc = testing::small_scenario("1d", "", "", "5m");
  for (int i = 0; i < 25; ++i) doc["cluster"]["x" + std::to_string(100 + i)] = 1;
  try {
    testing::prepare_doc(doc);
    FAIL("accepted an invalid scenario");
  } catch (const ScenarioError& e) {
    CHECK(e.errors().size() == kMaxErrors);
    CHECK(e.lines().back() == "5 more errors not shown (at most 20 are listed)");
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
