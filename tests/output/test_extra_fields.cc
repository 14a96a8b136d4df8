// ExtraFields: typed fields a policy adds to summary.json, written after the
// built-in keys in declaration order, null until set; and every field the
// output layer declares for all policies is documented in docs/outputs.md.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>

#include "sim/output/run_result.h"
#include "sim/output/summary.h"

namespace goodsim::output {
namespace {

RunResult one_policy_run() {
  RunResult run;
  run.scenario = "t";
  run.policies.emplace_back();
  run.policies[0].name = "p";
  run.policies[0].type = "data_parallel";
  return run;
}

TEST_CASE("declared extra fields are null until a policy sets them", "[output][extra]") {
  RunResult run = one_policy_run();
  const auto s = summary_json(run);
  const auto& d = s["policies"][0]["diagnostics"];
  REQUIRE(d.contains("mean_staleness"));
  CHECK(d["mean_staleness"].is_null());
  REQUIRE(d.contains("all_paused_fraction"));
  CHECK(d["all_paused_fraction"].is_null());
  // The declared fields come last, after the built-in keys, in declaration order.
  std::vector<std::string> keys;
  for (const auto& [key, value] : d.items()) keys.push_back(key);
  REQUIRE(keys.size() >= 2);
  CHECK(std::vector<std::string>(keys.end() - 2, keys.end()) ==
        std::vector<std::string>{"mean_staleness", "all_paused_fraction"});
}

TEST_CASE("extra fields keep their type and order in summary.json", "[output][extra]") {
  RunResult run = one_policy_run();
  Diagnostics& d = run.policies[0].diagnostics;
  d.extra.set_number("mean_staleness", 2.5);
  d.extra.add("merges", int64_t{12}, "count", "merges applied");
  d.extra.add("rule", std::string("quorum"), "text", "merge rule");
  d.extra.add("unknown", std::monostate{}, "s", "not measured");
  LearnerResult l;
  l.extra.set_number("mean_staleness", std::nullopt);
  l.extra.add("uptime", 0.75, "fraction", "time the learner trained");
  run.policies[0].learners.push_back(l);

  const auto s = summary_json(run);
  const auto& dj = s["policies"][0]["diagnostics"];
  CHECK(dj["mean_staleness"].get<double>() == 2.5);
  CHECK(dj["merges"].is_number_integer());
  CHECK(dj["merges"].get<int64_t>() == 12);
  CHECK(dj["rule"] == "quorum");
  CHECK(dj["unknown"].is_null());
  std::vector<std::string> keys;
  for (const auto& [key, value] : dj.items()) keys.push_back(key);
  REQUIRE(keys.size() >= 5);
  CHECK(std::vector<std::string>(keys.end() - 5, keys.end()) ==
        std::vector<std::string>{"mean_staleness", "all_paused_fraction", "merges", "rule",
                                 "unknown"});
  const auto& lj = s["policies"][0]["learners"][0];
  CHECK(lj["mean_staleness"].is_null());
  CHECK(lj["uptime"].get<double>() == 0.75);

  CHECK(d.extra.number("merges") == 12.0);
  CHECK(d.extra.number("rule") == std::nullopt);
  CHECK(d.extra.number("absent") == std::nullopt);
  REQUIRE(d.extra.find("merges") != nullptr);
  CHECK(d.extra.find("merges")->unit == "count");
}

TEST_CASE("every field declared for all policies is documented", "[output][extra]") {
  std::ifstream in(std::string(GOODSIM_SOURCE_DIR) + "/docs/outputs.md");
  REQUIRE(in.good());
  std::stringstream text;
  text << in.rdbuf();
  for (const ExtraFields& declared : {diagnostics_fields(), learner_fields()}) {
    for (const ExtraFields::Field& f : declared.fields()) {
      INFO(f.key);
      CHECK_FALSE(f.unit.empty());
      CHECK_FALSE(f.doc.empty());
      CHECK(text.str().find("| `" + f.key + "` | " + f.unit + " |") != std::string::npos);
    }
  }
}

}  // namespace
}  // namespace goodsim::output
