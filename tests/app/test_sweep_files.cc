// CSV fields and numbers, and reading a results file back (resume).
#include <catch2/catch.hpp>
#include <fstream>

#include "app/sweep/csv.h"
#include "app/sweep/results_file.h"
#include "sim/scenario/error.h"
#include "tests/app/test_sweep_support.h"

namespace goodsim::app::sweep {
namespace {

SweepTable small_table() {
  SweepTable t;
  t.axis_paths = {"policies.0.restart_time"};
  t.points = {{{"1m"}, {"fast", "slow, really"}, {"data_parallel", "data_parallel"}},
              {{"5m"}, {"fast", "slow, really"}, {"data_parallel", "data_parallel"}}};
  return t;
}

ResultRow row(size_t point, uint64_t seed, size_t policy, double goodput) {
  ResultRow r{point, seed, policy, {}, "00000000deadbeef"};
  r.metrics[kGoodput] = goodput;
  r.metrics[kUptime] = 0.9;
  return r;
}

TEST_CASE("csv: quoting, records and incomplete last lines", "[app][sweep]") {
  CHECK(csv_field("plain") == "plain");
  CHECK(csv_field("a,b") == "\"a,b\"");
  CHECK(csv_field("say \"hi\"") == "\"say \"\"hi\"\"\"");
  size_t complete = 0;
  const std::string text = "a,\"b,c\",\"d\"\"e\"\r\n\"multi\nline\",x\n1,2,partial";
  const auto records = parse_csv(text, complete);
  REQUIRE(records.size() == 2);
  CHECK(records[0].fields == std::vector<std::string>{"a", "b,c", "d\"e"});
  CHECK(records[1].fields == std::vector<std::string>{"multi\nline", "x"});
  CHECK(records[1].line == 2);
  CHECK(complete == text.find("1,2,partial"));
}

TEST_CASE("numbers round-trip exactly", "[app][sweep]") {
  for (double v : {0.1, 1.0 / 3, 0.8037146, 1.296e12, 227456800000.00003, 5e-324, 1e300}) {
    CHECK(parse_number(format_number(v)) == v);
  }
  CHECK(format_number(std::nullopt).empty());
  CHECK_FALSE(parse_number("1.5x"));
  CHECK_FALSE(parse_number(""));
  CHECK_FALSE(parse_number("nan"));
}

TEST_CASE("results file: rows round-trip; partial last line dropped", "[app][sweep]") {
  testing::ScratchDir dir("results-file");
  const SweepTable t = small_table();
  const std::string path = dir / "results.csv";
  std::string text =
      results_header(t) + format_row(t, row(1, 3, 1, 0.8)) + format_row(t, row(0, 1, 0, 1.0 / 3));
  std::ofstream(path, std::ios::binary) << text << "0,1m,2,fast,data_par";
  const LoadedResults loaded = load_results(path, t, 1, 5);
  REQUIRE(loaded.rows.size() == 2);
  CHECK(loaded.rows[0].point == 1);
  CHECK(loaded.rows[0].policy == 1);
  CHECK(loaded.rows[1].metrics[kGoodput] == 1.0 / 3);
  CHECK_FALSE(loaded.rows[1].metrics[kUptime + 1]);
  CHECK(loaded.complete_bytes == text.size());
  {
    ResultsLog log(path, loaded.complete_bytes, results_header(t));
    log.append(format_row(t, row(0, 2, 0, 0.5)));
  }
  CHECK(testing::read_text(path) == text + format_row(t, row(0, 2, 0, 0.5)));
}

TEST_CASE("results file: rows of another sweep are rejected", "[app][sweep]") {
  testing::ScratchDir dir("results-bad");
  const SweepTable t = small_table();
  const std::string path = dir / "results.csv";
  auto load_error = [&](const std::string& body) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << body;
    try {
      load_results(path, t, 1, 5);
    } catch (const scenario::ScenarioError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  const std::string good = format_row(t, row(0, 1, 0, 0.5));
  CHECK_THAT(load_error("point,x\n"), Catch::Contains("header differs"));
  CHECK_THAT(load_error(results_header(t) + "7" + good.substr(1)),
             Catch::Contains("point: expected 0 to 1"));
  CHECK_THAT(load_error(results_header(t) + format_row(t, row(0, 9, 0, 0.5))),
             Catch::Contains("seed: expected 1 to 5"));
  std::string wrong_value = good;
  wrong_value.replace(wrong_value.find("1m"), 2, "9m");
  CHECK_THAT(load_error(results_header(t) + wrong_value), Catch::Contains("grid point 0 has 1m"));
  CHECK_THAT(load_error(results_header(t) + "0,1m,1,fast\n"), Catch::Contains("line 2"));
}

}  // namespace
}  // namespace goodsim::app::sweep
