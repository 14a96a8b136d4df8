// The timeline trace: valid JSON in the Chrome trace-event format, with the
// expected processes, tracks, spans and counters; a budget that is fair
// between processes and paced over time (spans coalesced, never lost); dense
// point events as counters; the shared cluster track; gzip output.
#include <catch2/catch.hpp>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "sim/output/trace_writer.h"
#include "tests/support/scenarios.h"

namespace goodsim::output {
namespace {

using Json = nlohmann::json;
using core::SimTime;

Json read_json(const std::filesystem::path& p) {
  std::ifstream in(p);
  return Json::parse(in);
}

Json read_gzip_json(const std::filesystem::path& p) {
  gzFile f = gzopen(p.c_str(), "rb");
  REQUIRE(f != nullptr);
  std::string text;
  char buffer[1 << 14];
  int n = 0;
  while ((n = gzread(f, buffer, sizeof buffer)) > 0) text.append(buffer, static_cast<size_t>(n));
  gzclose(f);
  return Json::parse(text);
}

std::set<std::string> names_of(const Json& events, const std::string& meta) {
  std::set<std::string> out;
  for (const auto& e : events) {
    if (e["ph"] == "M" && e["name"] == meta) out.insert(e["args"]["name"].get<std::string>());
  }
  return out;
}

SimTime at_s(double s) { return SimTime::from_ns(static_cast<int64_t>(s * 1e9)); }

std::filesystem::path temp(const std::string& name) {
  return std::filesystem::temp_directory_path() / name;
}

TEST_CASE("run trace has a process per policy, the shared cluster, tracks, spans and counters",
          "[output][trace]") {
  Json doc = testing::small_scenario("5d", "20d", "1h", "5m");
  doc["policies"].push_back({{"name", "elastic"}, {"type", "elastic_data_parallel"}});
  const auto prepared = testing::prepare_doc(doc);
  const auto path = temp("goodsim_test_trace.json");
  {
    TraceWriter trace(path, models::trace_options(prepared));
    models::run_scenario(prepared, 3, nullptr, &trace);
    trace.commit();
  }
  const Json t = read_json(path);
  const auto& events = t["traceEvents"];
  CHECK(names_of(events, "process_name") == std::set<std::string>{"dp", "elastic", "cluster"});
  CHECK(names_of(events, "thread_name") ==
        std::set<std::string>{"failures", "job", "elastic.group"});
  std::set<std::string> spans, counters;
  std::map<std::string, size_t> instants;
  std::set<int> instant_pids;
  for (const auto& e : events) {
    if (e["ph"] == "X") {
      spans.insert(e["name"].get<std::string>());
      CHECK(e["dur"].get<double>() > 0);
    }
    if (e["ph"] == "C") counters.insert(e["name"].get<std::string>());
    if (e["ph"] == "i") {
      ++instants[e["name"].get<std::string>()];
      instant_pids.insert(e["pid"].get<int>());
    }
  }
  CHECK(spans.count("training") == 1);
  CHECK(spans.count("waiting") == 1);
  CHECK(spans.count("reconfigure") == 1);
  CHECK(counters == std::set<std::string>{"healthy chips", "active chips", "goodput (cumulative)"});
  CHECK(instants.size() == 2);  // failure and repair, once: on the cluster process only
  CHECK(instant_pids.size() == 1);
  CHECK(t["metadata"]["truncated"] == false);
  CHECK(t["metadata"]["coalesced_spans"] == 0);
  std::filesystem::remove(path);
}

// Spans of one track: {name, start, end} in seconds.
struct Span {
  std::string name;
  double start, end;
  Json args;
};
std::vector<Span> spans_of(const Json& events, int pid) {
  std::vector<Span> out;
  for (const auto& e : events) {
    if (e["ph"] != "X" || e["pid"] != pid) continue;
    const double ts = e["ts"].get<double>() / 1e6;
    out.push_back({e["name"], ts, ts + e["dur"].get<double>() / 1e6, e.value("args", Json())});
  }
  std::sort(out.begin(), out.end(), [](const Span& a, const Span& b) { return a.start < b.start; });
  return out;
}

TEST_CASE("the budget is paced over time: busy tracks are coalesced, never cut short",
          "[output][trace]") {
  const auto path = temp("goodsim_test_trace_pace.json");
  {
    TraceWriter trace(path, {/*max_records=*/200, /*processes=*/2, core::Duration::seconds(1000)});
    const uint32_t busy = trace.process("busy");
    const uint32_t quiet = trace.process("quiet");
    const uint32_t bt = trace.track(busy, "t");
    const uint32_t qt = trace.track(quiet, "t");
    for (int i = 0; i < 1000; ++i) trace.state(busy, bt, i % 2 ? "down" : "training", at_s(i));
    for (int i = 0; i < 50; ++i) trace.state(quiet, qt, i % 2 ? "down" : "training", at_s(20 * i));
    trace.close_process(busy, at_s(1000));
    trace.close_process(quiet, at_s(1000));
    trace.commit();
  }
  const Json t = read_json(path);
  const std::vector<Span> busy = spans_of(t["traceEvents"], 1);
  const std::vector<Span> quiet = spans_of(t["traceEvents"], 2);
  // The busy process keeps to its share (100 + slack + one coalesced span),
  // and its track stays continuous from 0 to the end.
  CHECK(busy.size() <= 100 + TraceWriter::kSlack + 1);
  CHECK(busy.size() >= 90);
  CHECK(busy.front().start == 0.0);
  CHECK(busy.back().end == Approx(1000.0));
  double covered = 0, training = 0;
  for (size_t i = 0; i < busy.size(); ++i) {
    if (i > 0) CHECK(busy[i].start == Approx(busy[i - 1].end));
    covered += busy[i].end - busy[i].start;
    if (busy[i].name == "training") training += busy[i].end - busy[i].start;
    if (busy[i].args.contains("training s")) training += busy[i].args["training s"].get<double>();
  }
  CHECK(covered == Approx(1000.0));
  CHECK(training == Approx(500.0));  // every other second, coalesced or not
  CHECK(busy.back().name.find("(coalesced)") != std::string::npos);
  // The quiet process lost nothing to the busy one.
  CHECK(quiet.size() == 50);
  CHECK(t["metadata"]["coalesced_spans"].get<uint64_t>() > 800);
  std::filesystem::remove(path);
}

TEST_CASE("dense point events become counters per bucket; sparse ones stay instants",
          "[output][trace]") {
  const auto path = temp("goodsim_test_trace_dense.json");
  {
    // 1000 s in buckets of 1 s (the round width at or above 1000 s / 1000).
    // A share of 2000 records: at most max(8, 2000 / 2000) instants per bucket.
    TraceWriter trace(path, {2'000, 1, core::Duration::seconds(1000)});
    CHECK(trace.bucket() == core::Duration::seconds(1));
    const uint32_t pid = trace.process("p");
    const uint32_t tid = trace.track(pid, "syncer");
    for (int i = 0; i < 20; ++i) {  // bucket [10 s, 11 s): 20 merges, quorum i
      trace.instant(pid, tid, "merge", at_s(10 + i * 0.01), Json{{"i", i}}, Json{{"quorum", i}});
    }
    for (int i = 0; i < 3; ++i) {  // bucket [50 s, 51 s): 3 merges
      trace.instant(pid, tid, "merge", at_s(50 + i * 0.1), Json{{"i", i}}, Json{{"quorum", 1}});
    }
    trace.close_process(pid, at_s(1000));
    trace.commit();
  }
  const Json t = read_json(path);
  std::vector<Json> counters;
  size_t instants = 0;
  for (const auto& e : t["traceEvents"]) {
    if (e["ph"] == "C" && e["name"] == "merge per 1s") counters.push_back(e);
    instants += e["ph"] == "i" ? 1 : 0;
  }
  CHECK(instants == 3);
  REQUIRE(counters.size() == 2);  // the dense bucket, then back to 0
  CHECK(counters[0]["ts"] == 10e6);
  CHECK(counters[0]["args"]["count"] == 20);
  CHECK(counters[0]["args"]["quorum (mean)"].get<double>() == Approx(9.5));
  CHECK(counters[1]["ts"] == 11e6);
  CHECK(counters[1]["args"]["count"] == 0);
  CHECK(t["metadata"]["dense_buckets"] == 1);
  std::filesystem::remove(path);
}

TEST_CASE("shared events are written once; a diverging history gets its own track",
          "[output][trace]") {
  const auto path = temp("goodsim_test_trace_shared.json.gz");
  {
    TraceWriter trace(path, {1000, 3, core::Duration::seconds(100)});
    const uint32_t a = trace.process("a");
    SharedCursor ca = trace.shared_cursor(a, "cluster", "failures");
    for (uint64_t k = 1; k <= 3; ++k) trace.shared_instant(ca, k, "failure", at_s(k), Json::object());
    const uint32_t b = trace.process("b");
    SharedCursor cb = trace.shared_cursor(b, "cluster", "failures");
    trace.shared_instant(cb, 1, "failure", at_s(1), Json::object());
    trace.shared_instant(cb, 7, "failure", at_s(2), Json::object());  // diverges
    trace.shared_instant(cb, 3, "failure", at_s(3), Json::object());
    trace.commit();
  }
  const Json t = read_gzip_json(path);
  std::map<int, size_t> per_pid;
  for (const auto& e : t["traceEvents"]) {
    if (e["ph"] == "i") ++per_pid[e["pid"].get<int>()];
  }
  // pid 1: a (nothing of its own), 2: cluster (3 shared), 3: b (2 after diverging).
  CHECK(per_pid == std::map<int, size_t>{{2, 3}, {3, 2}});
  CHECK(names_of(t["traceEvents"], "thread_name") ==
        std::set<std::string>{"failures", "failures (own history)"});
  std::filesystem::remove(path);
}

TEST_CASE("a decoupled run's trace has learner tracks and its merges", "[output][trace]") {
  Json doc = testing::small_scenario("2h", "", "", "5m", 4);
  doc["policies"] = {{{"name", "dec"}, {"type", "decoupled_diloco"}, {"learners", 2}}};
  const auto prepared = testing::prepare_doc(doc);
  const auto path = temp("goodsim_test_trace_dec.json");
  {
    TraceWriter trace(path, models::trace_options(prepared));
    models::run_scenario(prepared, 1, nullptr, &trace);
    trace.commit();
  }
  const Json t = read_json(path);
  const auto tracks = names_of(t["traceEvents"], "thread_name");
  CHECK(tracks.count("syncer") == 1);
  CHECK(tracks.size() >= 4);  // failures, syncer and one per learner
  size_t merges = 0;
  for (const auto& e : t["traceEvents"]) {
    if (e["ph"] == "i" && e["name"] == "merge") ++merges;
    if (e["ph"] == "C" && e["name"].get<std::string>().starts_with("merge per ")) {
      merges += e["args"]["count"].get<size_t>();
      CHECK(e["args"].contains("quorum (mean)"));
      CHECK(e["args"].contains("max_staleness (mean)"));
    }
  }
  CHECK(merges > 10);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace goodsim::output
