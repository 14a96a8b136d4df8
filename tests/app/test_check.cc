// goodsim check: baselines, verdicts and exit codes (0 ok, 1 regression,
// 2 bad input), in process and through the goodsim binary.
#include <catch2/catch.hpp>
#include <functional>
#include <sstream>

#include "app/sweep/baseline.h"
#include "app/sweep/check.h"
#include "sim/scenario/error.h"
#include "tests/app/test_sweep_support.h"

namespace goodsim::app::sweep {
namespace {

using Json = nlohmann::json;

struct CheckFixture {
  testing::ScratchDir dir{"check"};
  std::string scen = testing::write_json(dir / "s.json", testing::two_policy_scenario("30d"));
  std::string baseline = dir / "ci/baseline.json";

  CheckOptions options() const {
    CheckOptions o;
    o.scenarios = {scen};
    o.baseline = baseline;
    o.jobs = 2;
    return o;
  }
  int check(const CheckOptions& o, std::string* text = nullptr) const {
    std::ostringstream out;
    const int rc = check_command(o, out);
    if (text) *text = out.str();
    return rc;
  }
  void record(size_t seeds = 4) const {
    CheckOptions o = options();
    o.update = true;
    o.seeds = seeds;
    REQUIRE(check(o) == 0);
  }
  void edit(const std::function<void(Json&)>& change) const {
    Json b = Json::parse(testing::read_text(baseline));
    change(b);
    testing::write_json(baseline, b);
  }
};

TEST_CASE("check: passes on its own baseline, fails one it cannot meet", "[app][check]") {
  CheckFixture f;
  f.record();
  const Baseline b = read_baseline(f.baseline);
  CHECK(b.seeds == 4);
  REQUIRE(b.scenarios.size() == 1);
  CHECK(b.scenarios[0].policies.size() == 2);
  CHECK(b.scenarios[0].policies[0].metrics.size() == 2);  // goodput, uptime
  std::string text;
  CHECK(f.check(f.options(), &text) == 0);
  CHECK_THAT(text, Catch::Contains("check passed: 4 comparison(s), 4 seeds"));
  f.edit([](Json& j) { j["scenarios"][0]["policies"][1]["goodput"]["mean"] = 0.99; });
  CHECK(f.check(f.options(), &text) == 1);
  CHECK_THAT(text, Catch::Contains("REGRESSED"));
  CHECK_THAT(text, Catch::Contains("check FAILED: 1 of 4"));
  CheckOptions loose = f.options();
  loose.tolerances = {"goodput=0.5"};
  CHECK(f.check(loose) == 0);
  f.edit([](Json& j) { j["scenarios"][0]["policies"][1]["goodput"]["tolerance"] = 0.5; });
  CHECK(f.check(f.options()) == 0);
}

TEST_CASE("check: lower-is-better metrics regress upward", "[app][check]") {
  CheckFixture f;
  CheckOptions o = f.options();
  o.update = true;
  o.metrics = {"downtime_s,outages"};
  REQUIRE(f.check(o) == 0);
  CHECK(f.check(f.options()) == 0);
  f.edit([](Json& j) { j["scenarios"][0]["policies"][0]["downtime_s"]["mean"] = 1.0; });
  std::string text;
  CHECK(f.check(f.options(), &text) == 1);
  CHECK_THAT(text, Catch::Contains("downtime_s"));
  // --update keeps the recorded metrics and tolerances.
  f.edit([](Json& j) { j["scenarios"][0]["policies"][0]["outages"]["tolerance"] = 3; });
  f.record();
  const Baseline b = read_baseline(f.baseline);
  REQUIRE(b.scenarios[0].policies[0].metrics.size() == 2);
  CHECK(b.scenarios[0].policies[0].metrics[1].tolerance == 3.0);
}

TEST_CASE("check: bad input is an error naming what was expected", "[app][check]") {
  CheckFixture f;
  CHECK_THROWS_WITH(f.check(f.options()),
                    Catch::Contains("no such baseline file; record one with --update"));
  f.record();
  CheckOptions o = f.options();
  o.tolerances = {"goodputt=0.1"};
  CHECK_THROWS_WITH(f.check(o), Catch::Contains("unknown metric \"goodputt\""));
  o = f.options();
  o.sets = {"name=other"};
  CHECK_THROWS_WITH(f.check(o), Catch::Contains("no scenario \"other\""));
  o = f.options();
  o.sets = {"policies.1.name=slower"};
  CHECK_THROWS_WITH(f.check(o), Catch::Contains("no policy \"slower\""));
  f.edit([](Json& j) {
    j["scenarios"][0]["policies"][0]["godput"] = j["scenarios"][0]["policies"][0]["goodput"];
  });
  CHECK_THROWS_WITH(f.check(f.options()), Catch::Contains("did you mean \"goodput\""));
}

TEST_CASE("goodsim check and sweep exit codes through the binary", "[app][check]") {
  CheckFixture f;
  const std::string log = f.dir / "log.txt";
  const std::vector<std::string> check = {"check", f.scen, "--baseline", f.baseline, "-j", "2"};
  CHECK(testing::run_goodsim(check, log) == 2);  // no baseline yet
  std::vector<std::string> update = check;
  update.insert(update.end(), {"--update", "--seeds", "3"});
  CHECK(testing::run_goodsim(update, log) == 0);
  CHECK(testing::run_goodsim(check, log) == 0);
  f.edit([](Json& j) { j["scenarios"][0]["policies"][0]["uptime"]["mean"] = 0.9999; });
  CHECK(testing::run_goodsim(check, log) == 1);
  std::vector<std::string> loose = check;
  loose.insert(loose.end(), {"--tolerance", "0.5"});
  CHECK(testing::run_goodsim(loose, log) == 0);
  loose.back() = "-3";
  CHECK(testing::run_goodsim(loose, log) == 2);
  CHECK(testing::run_goodsim(
            {"sweep", f.scen, "--vary", "horizon=log:0..1:3", "--out", f.dir / "o"}, log) == 2);
  CHECK(testing::run_goodsim({"sweep", f.scen, "--seeds", "0", "--out", f.dir / "o"}, log) == 2);
  CHECK_FALSE(std::filesystem::exists(f.dir / "o"));
  CHECK_THAT(testing::read_text(log), Catch::Contains("A > 0 and B > 0, got A = 0"));
}

}  // namespace
}  // namespace goodsim::app::sweep

namespace goodsim::app::sweep {
namespace {

TEST_CASE("check: other seeds than the baseline's are refused, or compared with a warning",
          "[app][check]") {
  CheckFixture f;
  f.record(4);
  CheckOptions o = f.options();
  o.seeds = 3;
  CHECK_THROWS_WITH(f.check(o), Catch::Contains("cannot be paired") &&
                                    Catch::Contains("--allow-unpaired"));
  o = f.options();
  o.sets = {"seed=7"};
  CHECK_THROWS_WITH(f.check(o), Catch::Contains("this check runs seeds 7 to 10"));
  o.allow_unpaired = true;
  std::string text;
  const int rc = f.check(o, &text);
  CHECK((rc == 0 || rc == 1));
  CHECK_THAT(text, Catch::StartsWith("WARNING: scenario"));
  CHECK_THAT(text, Catch::Contains("compared unpaired"));
  CHECK(text.find("3 SE paired") == std::string::npos);
}

TEST_CASE("check: --format json lists every comparison with clamped CI bounds", "[app][check]") {
  CheckFixture f;
  f.record(4);
  CheckOptions o = f.options();
  o.format = "json";
  f.edit([](Json& j) { j["scenarios"][0]["policies"][1]["goodput"]["mean"] = 0.99; });
  std::string text;
  CHECK(f.check(o, &text) == 1);
  const Json doc = Json::parse(text);
  CHECK(doc["passed"] == false);
  CHECK(doc["failed"] == 1);
  REQUIRE(doc["results"].size() == 4);
  size_t regressed = 0;
  for (const Json& r : doc["results"]) {
    regressed += r["verdict"] == "REGRESSED" ? 1 : 0;
    CHECK(r["n"] == 4);
    if (r["now_ci95_lo"].is_number()) {
      CHECK(r["now_ci95_lo"].get<double>() >= 0.0);
      CHECK(r["now_ci95_hi"].get<double>() <= 1.0);  // goodput and uptime
    }
  }
  CHECK(regressed == 1);
  o.format = "yaml";
  CHECK_THROWS_WITH(f.check(o), Catch::Contains("expected text, json or junit"));
}

TEST_CASE("check: --format junit has a testcase per comparison and a failure per regression",
          "[app][check]") {
  CheckFixture f;
  f.record(4);
  f.edit([](Json& j) { j["scenarios"][0]["policies"][0]["uptime"]["mean"] = 0.9999; });
  CheckOptions o = f.options();
  o.format = "junit";
  std::string text;
  CHECK(f.check(o, &text) == 1);
  CHECK_THAT(text, Catch::StartsWith("<?xml version=\"1.0\""));
  CHECK_THAT(text, Catch::Contains("<testsuites name=\"goodsim check\" tests=\"4\" failures=\"1\">"));
  size_t cases = 0, pos = 0;
  while ((pos = text.find("<testcase ", pos)) != std::string::npos) ++cases, ++pos;
  CHECK(cases == 4);
  CHECK_THAT(text, Catch::Contains("<failure message=\"uptime REGRESSED"));
}

}  // namespace
}  // namespace goodsim::app::sweep
