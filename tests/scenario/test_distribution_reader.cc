// Reading duration distributions from scenario JSON.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/scenario/distribution_reader.h"
#include "sim/scenario/error.h"

namespace goodsim::scenario {
namespace {

using core::Distribution;
using nlohmann::json;

// Reads key "d" of `doc` (required), then finishes the reader.
Distribution read(const json& doc) {
  ObjectReader r(doc, "failures.0", std::make_shared<const std::string>("x.json"));
  const Distribution d = duration_distribution(r, "d", "test");
  r.finish();
  return d;
}

std::string error_of(const json& doc) {
  try {
    read(doc);
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "";
}

TEST_CASE("a plain duration is a fixed distribution", "[scenario][distribution]") {
  CHECK(read({{"d", "30m"}}).describe() == "fixed(1800)");
  CHECK(read({{"d", 90}}).describe() == "fixed(90)");
  CHECK(read({{"d", {{"dist", "fixed"}, {"value", "2h"}}}}).mean() == 7200);
}

TEST_CASE("every distribution family reads with durations for times", "[scenario][distribution]") {
  CHECK(read({{"d", {{"dist", "exponential"}, {"mean", "1h"}}}}).describe() ==
        "exponential(mean=3600)");
  const Distribution ln = read({{"d", {{"dist", "lognormal"}, {"mean", "1h"}, {"sigma", 1}}}});
  CHECK(ln.kind() == Distribution::Kind::kLognormal);
  CHECK(ln.mean() == Approx(3600));
  CHECK(read({{"d", {{"dist", "lognormal"}, {"mean", "1h"}, {"cv", 2}}}}).mean() == Approx(3600));
  CHECK(read({{"d", {{"dist", "lognormal"}, {"mean", "1h"}, {"stddev", "30m"}}}}).mean() ==
        Approx(3600));
  // median e^mu, mean e^(mu + sigma^2/2)
  CHECK(read({{"d", {{"dist", "lognormal"}, {"median", "1h"}, {"sigma", 1}}}}).mean() ==
        Approx(3600 * std::exp(0.5)));
  CHECK(read({{"d", {{"dist", "weibull"}, {"shape", 0.7}, {"scale", "1d"}}}}).describe() ==
        "weibull(shape=0.7, scale=86400)");
  CHECK(read({{"d", {{"dist", "weibull"}, {"shape", 0.7}, {"mean", "1d"}}}}).mean() ==
        Approx(86400));
  CHECK(read({{"d", {{"dist", "exp_weibull"}, {"shape", 1}, {"scale", 100}, {"alpha", 1}}}})
            .mean() == Approx(100));
  CHECK(read({{"d", {{"dist", "uniform"}, {"min", "10m"}, {"max", "50m"}}}}).mean() == 1800);
  CHECK(read({{"d", {{"dist", "normal"}, {"mean", "1h"}, {"stddev", 0}}}}).mean() == 3600);
}

TEST_CASE("distribution errors name the path and the expectation", "[scenario][distribution]") {
  CHECK_THAT(error_of({{"d", {{"dist", "lognormall"}, {"mean", "1h"}}}}),
             Catch::Contains("failures.0.d.dist") && Catch::Contains("did you mean \"lognormal\""));
  CHECK_THAT(error_of({{"d", {{"dist", "exponential"}, {"mean", "1h"}, {"sigma", 1}}}}),
             Catch::Contains("failures.0.d.sigma: not a parameter of a \"exponential\""));
  CHECK_THAT(error_of({{"d", {{"dist", "weibull"}, {"shape", 0}, {"scale", "1h"}}}}),
             Catch::Contains("failures.0.d.shape: expected a number > 0, got 0"));
  CHECK_THAT(error_of({{"d", {{"dist", "weibull"}, {"shape", -1}, {"scale", "1h"}}}}),
             Catch::Contains("expected a number > 0"));
  CHECK_THAT(error_of({{"d", {{"dist", "weibull"}, {"shape", 1}}}}),
             Catch::Contains("failures.0.d: missing one of \"scale\", \"mean\""));
  CHECK_THAT(error_of({{"d", {{"dist", "weibull"}, {"shape", 1}, {"scale", 1}, {"mean", 1}}}}),
             Catch::Contains("conflicts with \"scale\""));
  CHECK_THAT(error_of({{"d", {{"dist", "exponential"}, {"mean", 0}}}}),
             Catch::Contains("failures.0.d.mean: expected a duration > 0"));
  CHECK_THAT(error_of({{"d", {{"dist", "lognormal"}, {"mean", "1h"}, {"sigma", -1}}}}),
             Catch::Contains("failures.0.d.sigma: expected a number >= 0"));
  CHECK_THAT(error_of({{"d", {{"dist", "uniform"}, {"min", "1h"}, {"max", "1m"}}}}),
             Catch::Contains("failures.0.d.max: must be >= min"));
  CHECK_THAT(error_of({{"d", {{"mean", "1h"}}}}),
             Catch::Contains("missing required key \"dist\""));
  CHECK_THAT(error_of({{"d", true}}),
             Catch::Contains("failures.0.d: expected a duration like \"30m\" or a distribution"));
  CHECK_THAT(error_of({{"d", "-5m"}}), Catch::Contains("failures.0.d"));
  CHECK_THAT(error_of(json::object()), Catch::Contains("missing required key \"d\""));
}

TEST_CASE("distribution keys: default, optional and describe mode", "[scenario][distribution]") {
  const json empty = json::object();
  ObjectReader r(empty, "x");
  CHECK(duration_distribution(r, "d", core::Duration::hours(1), "h").mean() == 3600);
  CHECK_FALSE(optional_duration_distribution(r, "e", "h").has_value());
  ObjectReader d = ObjectReader::describe();
  CHECK(duration_distribution(d, "repair_time", core::Duration::hours(1), "h").mean() == 3600);
  REQUIRE(d.docs().size() == 1);
  CHECK(d.docs()[0].key == "repair_time");
  CHECK(d.docs()[0].default_text == "1h");
  CHECK_THAT(d.docs()[0].help, Catch::Contains("distribution"));
  CHECK(distribution_names().size() == 7);
}

}  // namespace
}  // namespace goodsim::scenario
