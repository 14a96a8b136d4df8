// The timeline trace: valid JSON in the Chrome trace-event format, with the
// expected processes, tracks, spans and counters, and a bounded size.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <set>

#include "sim/output/trace_writer.h"
#include "tests/support/scenarios.h"

namespace goodsim::output {
namespace {

nlohmann::json read_json(const std::filesystem::path& p) {
  std::ifstream in(p);
  return nlohmann::json::parse(in);
}

std::set<std::string> names_of(const nlohmann::json& events, const std::string& meta) {
  std::set<std::string> out;
  for (const auto& e : events) {
    if (e["ph"] == "M" && e["name"] == meta) out.insert(e["args"]["name"].get<std::string>());
  }
  return out;
}

TEST_CASE("run trace has a process per policy, its tracks, spans and counters", "[output][trace]") {
  nlohmann::json doc = testing::small_scenario("5d", "20d", "1h", "5m");
  doc["policies"].push_back({{"name", "elastic"}, {"type", "elastic_data_parallel"}});
  const auto prepared = testing::prepare_doc(doc);
  const auto path = std::filesystem::temp_directory_path() / "goodsim_test_trace.json";
  {
    TraceWriter trace(path);
    models::run_scenario(prepared, 3, nullptr, &trace);
    trace.commit();
  }
  const nlohmann::json t = read_json(path);
  const auto& events = t["traceEvents"];
  CHECK(names_of(events, "process_name") == std::set<std::string>{"dp", "elastic"});
  CHECK(names_of(events, "thread_name") == std::set<std::string>{"cluster", "job", "elastic.group"});
  std::set<std::string> spans, counters, instants;
  for (const auto& e : events) {
    if (e["ph"] == "X") {
      spans.insert(e["name"].get<std::string>());
      CHECK(e["dur"].get<double>() > 0);
    }
    if (e["ph"] == "C") counters.insert(e["name"].get<std::string>());
    if (e["ph"] == "i") instants.insert(e["name"].get<std::string>());
  }
  CHECK(spans.count("training") == 1);
  CHECK(spans.count("waiting") == 1);
  CHECK(spans.count("reconfigure") == 1);
  CHECK(counters == std::set<std::string>{"healthy chips", "active chips", "goodput (cumulative)"});
  CHECK(instants == std::set<std::string>{"failure", "repair"});
  CHECK(t["metadata"]["truncated"] == false);
  std::filesystem::remove(path);
}

TEST_CASE("trace size is bounded and the file says what was dropped", "[output][trace]") {
  const auto path = std::filesystem::temp_directory_path() / "goodsim_test_trace_cap.json";
  {
    TraceWriter trace(path, /*max_events=*/10);
    const uint32_t pid = trace.process("p");
    const uint32_t tid = trace.track(pid, "t");
    for (int i = 0; i < 25; ++i) {
      trace.instant(pid, tid, "failure", core::SimTime::from_ns(i * 1000), nlohmann::json::object());
      trace.counter(pid, "chips", core::SimTime::from_ns(i * 1000), i);
    }
    trace.commit();
  }
  const nlohmann::json t = read_json(path);
  CHECK(t["metadata"]["truncated"] == true);
  CHECK(t["metadata"]["dropped_events"]["failure"] == 15);
  size_t counters = 0;
  for (const auto& e : t["traceEvents"]) counters += e["ph"] == "C" ? 1 : 0;
  CHECK(counters == 25);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace goodsim::output

namespace goodsim::output {
namespace {

TEST_CASE("a decoupled run's trace has learner tracks and merge instants", "[output][trace]") {
  nlohmann::json doc = testing::small_scenario("2h", "", "", "5m", 4);
  doc["policies"] = {{{"name", "dec"}, {"type", "decoupled_diloco"}, {"learners", 2}}};
  const auto path = std::filesystem::temp_directory_path() / "goodsim_test_trace_dec.json";
  {
    TraceWriter trace(path);
    models::run_scenario(testing::prepare_doc(doc), 1, nullptr, &trace);
    trace.commit();
  }
  const nlohmann::json t = read_json(path);
  const auto tracks = names_of(t["traceEvents"], "thread_name");
  CHECK(tracks.count("syncer") == 1);
  CHECK(tracks.size() >= 4);  // cluster, syncer and one per learner
  size_t merges = 0;
  for (const auto& e : t["traceEvents"]) merges += e["ph"] == "i" && e["name"] == "merge" ? 1 : 0;
  CHECK(merges > 10);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace goodsim::output
