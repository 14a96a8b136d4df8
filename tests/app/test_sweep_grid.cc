// --vary parsing and grid expansion.
#include <catch2/catch.hpp>

#include "app/sweep/grid.h"
#include "sim/scenario/error.h"

namespace goodsim::app::sweep {
namespace {

using Json = nlohmann::json;

std::vector<std::string> texts(const Axis& a) {
  std::vector<std::string> out;
  for (const Json& v : a.values) out.push_back(value_text(v));
  return out;
}

// The message of the ScenarioError that parse_vary(arg) throws.
std::string vary_error(const std::string& arg) {
  try {
    parse_vary(arg);
  } catch (const scenario::ScenarioError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST_CASE("--vary lists: JSON where it parses, else strings", "[app][sweep]") {
  const Axis a = parse_vary("cluster.chips=4096, 8192,16384");
  CHECK(a.path == "cluster.chips");
  REQUIRE(a.values.size() == 3);
  CHECK(a.values[1] == Json(8192));
  const Axis b = parse_vary("policies.0.restart_time=5m,1h30m,true");
  CHECK(b.values[0] == Json("5m"));
  CHECK(b.values[2] == Json(true));
  const Axis c = parse_vary("x=[1,2],{\"a\":1,\"b\":2},\"q,r\"");
  REQUIRE(c.values.size() == 3);
  CHECK(c.values[0] == Json::array({1, 2}));
  CHECK(c.values[2] == Json("q,r"));
  CHECK(texts(c) == std::vector<std::string>{"[1,2]", "{\"a\":1,\"b\":2}", "q,r"});
}

TEST_CASE("--vary lin ranges: evenly spaced, tidy, integers when whole", "[app][sweep]") {
  CHECK(texts(parse_vary("p=lin:4..16:4")) == std::vector<std::string>{"4", "8", "12", "16"});
  const Axis tenths = parse_vary("p=lin:0..1:11");
  REQUIRE(tenths.values.size() == 11);
  CHECK(tenths.values[3] == Json(0.3));
  CHECK(texts(parse_vary("p=lin:1h..4h:4")) == std::vector<std::string>{"1h", "2h", "3h", "4h"});
  CHECK(texts(parse_vary("p=lin:1..2:3")) == std::vector<std::string>{"1", "1.5", "2"});
  CHECK(texts(parse_vary("p=lin:10..0:3")) == std::vector<std::string>{"10", "5", "0"});
}

TEST_CASE("--vary log ranges: geometric, endpoints exact, :int rounds", "[app][sweep]") {
  CHECK(texts(parse_vary("p=log:1e4..1e6:5")) ==
        std::vector<std::string>{"10000", "31622.7766017", "100000", "316227.766017", "1000000"});
  CHECK(texts(parse_vary("p=log:1e4..1e6:5:int")) ==
        std::vector<std::string>{"10000", "31623", "100000", "316228", "1000000"});
  CHECK(texts(parse_vary("p=log:1y..100y:3")) == std::vector<std::string>{"1y", "10y", "100y"});
}

TEST_CASE("bad --vary syntax and ranges are rejected with what was expected", "[app][sweep]") {
  CHECK_THAT(vary_error("cluster.chips"), Catch::Contains("expected PATH=VALUES"));
  CHECK_THAT(vary_error("=1,2"), Catch::Contains("expected a scenario key"));
  CHECK_THAT(vary_error("p="), Catch::Contains("expected values after '='"));
  CHECK_THAT(vary_error("p=1,,2"), Catch::Contains("expected a value at position 2"));
  CHECK_THAT(vary_error("p=1,2,1"), Catch::Contains("value 1 appears twice"));
  CHECK_THAT(vary_error("p=lin:1..3"), Catch::Contains("expected lin:A..B:N"));
  CHECK_THAT(vary_error("p=lin:1-3:4"), Catch::Contains("expected lin:A..B:N"));
  CHECK_THAT(vary_error("p=lin:a..b:3"), Catch::Contains("A and B must be numbers"));
  CHECK_THAT(vary_error("p=lin:1..3:1"), Catch::Contains("from 2 to 10000, got \"1\""));
  CHECK_THAT(vary_error("p=lin:1..3:2.5"), Catch::Contains("whole number of points"));
  CHECK_THAT(vary_error("p=log:0..100:3"), Catch::Contains("A > 0 and B > 0, got A = 0"));
  CHECK_THAT(vary_error("p=log:-1..100:3"), Catch::Contains("A > 0 and B > 0"));
  CHECK_THAT(vary_error("p=lin:1h..2d:3"), Catch::Contains("same unit, got \"h\" and \"d\""));
  CHECK_THAT(vary_error("p=lin:5..5:3"), Catch::Contains("A and B are both 5"));
  CHECK_THAT(vary_error("p=lin:1..2:3:round"), Catch::Contains("expected \":int\""));
  CHECK_THAT(vary_error("p=lin:1..2:5:int"), Catch::Contains("appears twice"));
  CHECK_THAT(vary_error("cluster.chips=lin:1..3"), Catch::StartsWith("--vary: cluster.chips: "));
}

TEST_CASE("grid: cartesian product, first --vary outermost", "[app][sweep]") {
  const Grid g({parse_vary("a=1,2,3"), parse_vary("b=x,y")});
  REQUIRE(g.size() == 6);
  CHECK(g.value_texts(0) == std::vector<std::string>{"1", "x"});
  CHECK(g.value_texts(1) == std::vector<std::string>{"1", "y"});
  CHECK(g.value_texts(5) == std::vector<std::string>{"3", "y"});
  CHECK(g.describe(3) == "a=2, b=y");
  const Grid empty({});
  CHECK(empty.size() == 1);
  CHECK(empty.describe(0) == "(no --vary)");
}

TEST_CASE("grid: repeated paths, a seed axis and unknown paths are rejected", "[app][sweep]") {
  CHECK_THROWS_WITH(Grid({parse_vary("a=1,2"), parse_vary("a=3")}),
                    Catch::Contains("varied twice"));
  CHECK_THROWS_WITH(Grid({parse_vary("seed=1,2")}), Catch::Contains("--seeds"));
  CHECK_THROWS_WITH(
      Grid({parse_vary("a=lin:1..100:100"), parse_vary("b=lin:1..100:100"), parse_vary("c=1,2")}),
      Catch::Contains("more than 10000 points"));
  const Grid g({parse_vary("cluster.nope.x=1,2")});
  Json doc = {{"cluster", {{"chips", 4}}}};
  CHECK_THROWS_WITH(g.apply(0, doc), Catch::StartsWith("--vary: cluster.nope"));
  const Grid ok({parse_vary("cluster.chips=8,16")});
  ok.apply(1, doc);
  CHECK(doc["cluster"]["chips"] == Json(16));
}

}  // namespace
}  // namespace goodsim::app::sweep
