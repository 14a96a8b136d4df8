// Root-cause mixes: reading weights and presets, and their errors.
#include <catch2/catch.hpp>

#include <string>

#include <nlohmann/json.hpp>

#include "models/failure/cause_mix.h"
#include "sim/scenario/error.h"

namespace goodsim::models::failure {
namespace {

using nlohmann::json;
using scenario::ObjectReader;
using scenario::ScenarioError;

CauseMix read_causes(const json& doc) {
  ObjectReader r(doc, "failures.0");
  return CauseMix::from_json(r, "causes", "unspecified");
}

std::string cause_error(const json& doc) {
  try {
    read_causes(doc);
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "";
}

TEST_CASE("cause mixes: weights, presets and defaults", "[scenario][causes]") {
  const CauseMix none = read_causes(json::object());
  REQUIRE(none.size() == 1);
  CHECK(none.name(0) == "unspecified");
  const CauseMix mix = read_causes({{"causes", {{"gpu", 3}, {"network", "25%"}}}});
  REQUIRE(mix.size() == 2);
  CHECK(mix.name(0) == "gpu");
  CHECK(mix.probability(0) == Approx(3 / 3.25));
  const CauseMix llama = read_causes({{"causes", "llama3"}});
  REQUIRE(llama.size() == 6);
  CHECK(llama.name(0) == "gpu");
  CHECK(llama.probability(0) == Approx(268.0 / 419));
  const CauseMix detailed = *CauseMix::preset("llama3_detailed");
  double gpu = 0;
  for (size_t i = 0; i < detailed.size(); ++i) {
    const std::string& n = detailed.name(i);
    if (n.find("gpu") != std::string::npos || n == "silent_data_corruption") gpu += detailed.probability(i);
  }
  CHECK(gpu == Approx(268.0 / 419));  // ~64% GPU-related, as published
}

TEST_CASE("cause mix errors", "[scenario][causes]") {
  CHECK_THAT(cause_error({{"causes", "llama"}}),
             Catch::Contains("failures.0.causes: unknown cause preset \"llama\"; did you mean \"llama3\""));
  CHECK_THAT(cause_error({{"causes", "wombat"}}), Catch::Contains("presets are \"llama3\""));
  CHECK_THAT(cause_error({{"causes", {{"gpu", -1}}}}),
             Catch::Contains("failures.0.causes.gpu: expected a weight >= 0, got -1"));
  CHECK_THAT(cause_error({{"causes", {{"gpu", 0}}}}), Catch::Contains("at least one weight"));
  CHECK_THAT(cause_error({{"causes", {{"bad name", 1}}}}), Catch::Contains("a cause name must"));
  CHECK_THAT(cause_error({{"causes", json::object()}}), Catch::Contains("non-empty object"));
  CHECK_THAT(cause_error({{"causes", 3}}), Catch::Contains("expected a preset name"));
}

}  // namespace
}  // namespace goodsim::models::failure
