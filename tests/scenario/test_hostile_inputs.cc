// Hostile input to the scenario layer: each case reproduces a blow-up found by fuzzing
// (quadratic memory or time, raw library exceptions, unbounded echoes) and checks the
// bounded, precise behaviour that replaced it.
#include <catch2/catch.hpp>

#include <functional>
#include <string>

#include "sim/cluster/layout.h"
#include "sim/scenario/error.h"
#include "sim/scenario/json_file.h"
#include "sim/scenario/overrides.h"
#include "sim/scenario/reader.h"
#include "sim/scenario/utf8.h"

namespace goodsim::scenario {
namespace {

using nlohmann::json;

std::string nested_lists(size_t depth) {
  return std::string(depth, '[') + std::string(depth, ']');
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST_CASE("hostile: nesting is limited, with the path where it went too deep",
          "[scenario][hostile]") {
  CHECK_NOTHROW(parse_json_text(nested_lists(kMaxJsonDepth), "x.json"));
  const std::string deep = error_of([] { parse_json_text(nested_lists(100'000), "x.json"); });
  CHECK(deep.starts_with("x.json: 0.0.0."));
  CHECK(deep.find("nested deeper than 64 levels") != std::string::npos);
  const std::string in_object = error_of([] {
    parse_json_text(R"({"a": {"b": )" + nested_lists(kMaxJsonDepth) + "}}", "x.json");
  });
  CHECK(in_object.starts_with("x.json: a.b.0.0."));
}

TEST_CASE("hostile: a number too large for a double names file, path, line and column",
          "[scenario][hostile]") {
  const std::string e = error_of([] {
    parse_json_text("{\"job\": {\"tokens_per_step\": 1,\n \"params\": 1e555}}", "x.json");
  });
  CHECK(e == "x.json: job.params: line 2, column 16: number overflow parsing '1e555'");
}

TEST_CASE("hostile: duplicate keys are found without building paths", "[scenario][hostile]") {
  const std::string e = error_of([] {
    parse_json_text(R"({"policies": [{"type": "a"}, {"type": "b", "type": "c"}]})", "x.json");
  });
  CHECK(e == "x.json: policies.1.type: duplicate key");
}

TEST_CASE("hostile: documents with too many values are refused", "[scenario][hostile]") {
  std::string many = "[0";
  for (size_t i = 0; i < kMaxJsonValues; ++i) many += ",0";
  many += "]";
  CHECK(error_of([&] { parse_json_text(many, "x.json"); })
            .find("more than 2000000 JSON values") != std::string::npos);
}

TEST_CASE("hostile: a long list of objects reads in linear time", "[scenario][hostile]") {
  // Each element used to be looked up among all earlier ones: quadratic in the length.
  json doc = {{"items", json::array()}};
  for (int i = 0; i < 200'000; ++i) doc["items"].push_back(json::object());
  ObjectReader r(doc, "");
  CHECK(r.object_list("items").size() == 200'000);
  CHECK_NOTHROW(r.finish());
}

TEST_CASE("hostile: did-you-mean skips long words and stays O(length) in memory",
          "[scenario][hostile]") {
  const std::string site(20'000, 's');
  std::string near_miss = site;
  near_miss.back() = 't';
  CHECK_FALSE(closest_match(near_miss, {site}).has_value());
  CHECK(closest_match("chps", {"hosts", "chips"}) == "chips");
  CHECK(edit_distance("abcd", "abdc") == 1);
  CHECK(edit_distance("kitten", "sitting") == 3);
  const std::string a(2'000, 'a');
  CHECK(edit_distance(a, a + "b") == 1);  // rolling rows: no 2,000 x 2,000 table
}

TEST_CASE("hostile: echoed keys and values are shortened in messages", "[scenario][hostile]") {
  const ScenarioError e("x.json", "sites." + std::string(1'000'000, 'k'),
                        "unknown site \"" + std::string(5'000'000, 'v') + "\"");
  const std::string what = e.what();
  CHECK(what.size() < kMaxShownPart + kMaxShownMessage + 200);
  CHECK(what.starts_with("x.json: sites.kkk"));
  CHECK(what.find("characters left out") != std::string::npos);
  CHECK(e.message().size() > 5'000'000);  // the parts themselves are kept whole
}

TEST_CASE("hostile: --set values obey the same limits and must be UTF-8",
          "[scenario][hostile]") {
  json doc = {{"name", "x"}, {"policies", {{{"name", "a"}}}}};
  CHECK(error_of([&] { apply_override(doc, "name=" + nested_lists(1000)); })
            .starts_with("--set name: 0.0."));
  CHECK(error_of([&] { apply_override(doc, "policies.0.name=caf\xC3"); }) ==
        "--set: policies.0.name: the value is not valid UTF-8 text");
  CHECK(doc["policies"][0]["name"] == "a");
  apply_override(doc, "policies.0.name=caf\xC3\xA9");
  CHECK(doc["policies"][0]["name"] == "caf\xC3\xA9");
}

TEST_CASE("hostile: errors at a key set on the command line name the --set argument",
          "[scenario][hostile]") {
  const std::vector<std::string> sets = {"cluster.chips=4", "cluster=5", "horizon=2d"};
  const ScenarioError in_set("x.json", "cluster.chips", "expected a count >= 1, got -5");
  CHECK(std::string(attribute_to_override(in_set, sets).what()) ==
        "--set cluster=5: cluster.chips: expected a count >= 1, got -5");
  const ScenarioError elsewhere("x.json", "clusterx", "unknown key");
  CHECK(std::string(attribute_to_override(elsewhere, sets).what()) ==
        "x.json: clusterx: unknown key");
}

TEST_CASE("hostile: UTF-8 validation", "[scenario][hostile]") {
  CHECK(is_valid_utf8("plain ascii"));
  CHECK(is_valid_utf8("\xE2\x82\xAC and \xF0\x9F\x98\x80"));
  CHECK_FALSE(is_valid_utf8("\xC3"));               // cut short
  CHECK_FALSE(is_valid_utf8("\xC0\xAF"));           // overlong '/'
  CHECK_FALSE(is_valid_utf8("\xED\xA0\x80"));       // a surrogate
  CHECK_FALSE(is_valid_utf8("\xF4\x90\x80\x80"));   // above U+10FFFF
  CHECK_FALSE(is_valid_utf8("\xFF"));
}

TEST_CASE("hostile: a layout of a billion one-chip slices holds O(sites) memory",
          "[scenario][hostile]") {
  // It used to hold a site id per slice: 4 GB before anything ran.
  const cluster::Layout layout(1, 1, {{"a", 600'000'000}, {"b", 400'000'000}});
  CHECK(layout.slices() == 1'000'000'000u);
  CHECK(layout.site_of(0) == 0);
  CHECK(layout.site_of(599'999'999) == 0);
  CHECK(layout.site_of(600'000'000) == 1);
  CHECK(layout.site_of(999'999'999) == 1);
}

}  // namespace
}  // namespace goodsim::scenario
