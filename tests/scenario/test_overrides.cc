#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "sim/core/time.h"
#include "sim/scenario/error.h"
#include "sim/scenario/overrides.h"
#include "sim/scenario/reader.h"

namespace {

using goodsim::scenario::apply_override;
using goodsim::scenario::ScenarioError;
using nlohmann::json;

json sample() {
  return json::parse(R"({
    "horizon": "7d",
    "seed": 1,
    "cluster": {"chips": 1024, "sites": [{"name": "a"}, {"name": "b"}]},
    "policies": [
      {"name": "dp", "type": "data_parallel"},
      {"name": "dd", "type": "decoupled_diloco", "learners": 8}
    ]
  })");
}

// The ScenarioError thrown by applying `assignment` to a fresh sample; fails if none.
ScenarioError error_for(const std::string& assignment) {
  json doc = sample();
  try {
    apply_override(doc, assignment);
  } catch (const ScenarioError& e) {
    CHECK(doc == sample());  // unchanged on error
    return e;
  }
  FAIL("no error for " << assignment);
  return ScenarioError("", "", "");
}

}  // namespace

TEST_CASE("overrides: values are JSON when they parse", "[scenario][overrides]") {
  json doc = sample();
  apply_override(doc, "seed=42");
  CHECK(doc["seed"] == 42);
  apply_override(doc, "cluster.chips=1.2e6");
  CHECK(doc["cluster"]["chips"] == 1.2e6);
  apply_override(doc, "cluster.spares=true");
  CHECK(doc["cluster"]["spares"] == true);
  apply_override(doc, R"(name="my run")");
  CHECK(doc["name"] == "my run");
  apply_override(doc, R"(cluster.links=[{"from": "a", "to": "b"}])");
  CHECK(doc["cluster"]["links"][0]["to"] == "b");
  apply_override(doc, R"(outputs={"events": true})");
  CHECK(doc["outputs"]["events"] == true);
  apply_override(doc, "seed=null");
  CHECK(doc["seed"].is_null());
  apply_override(doc, "cluster.chips= 16 ");
  CHECK(doc["cluster"]["chips"] == 16);
}

TEST_CASE("overrides: other values are plain strings", "[scenario][overrides]") {
  json doc = sample();
  apply_override(doc, "horizon=36h");
  CHECK(doc["horizon"] == "36h");
  apply_override(doc, "description=a b c");
  CHECK(doc["description"] == "a b c");
  apply_override(doc, "description=");
  CHECK(doc["description"] == "");
  apply_override(doc, "note=x=y");  // only the first '=' splits
  CHECK(doc["note"] == "x=y");
  apply_override(doc, "seed=007");  // not valid JSON: kept as text, parsed as a count later
  CHECK(doc["seed"] == "007");
}

TEST_CASE("overrides: list elements by index", "[scenario][overrides]") {
  json doc = sample();
  apply_override(doc, "policies.1.learners=16");
  CHECK(doc["policies"][1]["learners"] == 16);
  apply_override(doc, "policies.0.checkpoint_interval=30m");
  CHECK(doc["policies"][0]["checkpoint_interval"] == "30m");
  apply_override(doc, "cluster.sites.1.name=west");
  CHECK(doc["cluster"]["sites"][1]["name"] == "west");
  apply_override(doc, R"(cluster.sites.0={"name": "east", "slices": 2})");
  CHECK(doc["cluster"]["sites"][0]["slices"] == 2);
}

TEST_CASE("overrides: the result reads through ObjectReader", "[scenario][overrides]") {
  json doc = sample();
  apply_override(doc, "horizon=36h");
  apply_override(doc, "cluster.chips=1.2e6");
  goodsim::scenario::ObjectReader r(doc, "", nullptr);
  CHECK(r.duration("horizon", "") == goodsim::core::Duration::hours(36));
  CHECK(r.object("cluster").count("chips", "") == 1'200'000);
}

TEST_CASE("overrides: malformed assignments", "[scenario][overrides]") {
  CHECK(std::string(error_for("horizon").what()) ==
        R"(--set: expected path.to.key=value, got "horizon")");
  CHECK(std::string(error_for("=5").what()) == R"(--set: empty key path in "=5")");
  CHECK(std::string(error_for(" =5").what()) == R"(--set: empty key path in " =5")");
  CHECK(std::string(error_for("cluster..chips=5").what()) ==
        "--set: cluster..chips: empty key between dots");
  CHECK(std::string(error_for("cluster.=5").what()) == "--set: cluster.: empty key between dots");
  CHECK(error_for("horizon").file() == "--set");
}

TEST_CASE("overrides: missing intermediate keys suggest existing ones",
          "[scenario][overrides]") {
  const ScenarioError typo = error_for("clustr.chips=5");
  CHECK(std::string(typo.what()) == R"(--set: clustr: no such key; did you mean "cluster"?)");
  CHECK(typo.path() == "clustr");
  CHECK(std::string(error_for("cluster.sitez.0.name=x").what()) ==
        R"(--set: cluster.sitez: no such key; did you mean "sites"?)");
  CHECK(std::string(error_for("job.step_time=1s").what()) ==
        R"(--set: job: no such key; valid keys are "cluster", "horizon", "policies", "seed")");
}

TEST_CASE("overrides: final keys may be new, intermediates may not", "[scenario][overrides]") {
  json doc = sample();
  apply_override(doc, "cluster.new_key=1");
  CHECK(doc["cluster"]["new_key"] == 1);
  CHECK_THROWS_AS(apply_override(doc, "cluster.new_obj.x=1"), ScenarioError);
}

TEST_CASE("overrides: list index errors", "[scenario][overrides]") {
  CHECK(std::string(error_for("policies.5.learners=16").what()) ==
        "--set: policies.5: index 5 is out of range; the list has 2 elements");
  CHECK(std::string(error_for("policies.2=1").what()) ==
        "--set: policies.2: index 2 is out of range; the list has 2 elements");
  CHECK(std::string(error_for("policies.dd.learners=16").what()) ==
        R"(--set: policies.dd: "dd" is not a list index; use 0 to 1)");
  CHECK(std::string(error_for("policies.-1.learners=16").what()) ==
        R"(--set: policies.-1: "-1" is not a list index; use 0 to 1)");
}

TEST_CASE("overrides: cannot index into scalars", "[scenario][overrides]") {
  CHECK(std::string(error_for("horizon.unit=s").what()) ==
        R"(--set: horizon.unit: cannot set a key in "horizon": it is "7d", not an object or a list)");
  CHECK(std::string(error_for("seed.a.b=1").what()) ==
        R"(--set: seed.a: cannot go into "seed": it is 1, not an object or a list)");
  CHECK(std::string(error_for("policies.0.name.x=1").what()) ==
        R"(--set: policies.0.name.x: cannot set a key in "policies.0.name": it is "dp", not an object or a list)");
  json scalar = 5;
  CHECK_THROWS_WITH(apply_override(scalar, "a=1"),
                    R"(--set: a: cannot set a key in the scenario: it is 5, not an object or a list)");
}
