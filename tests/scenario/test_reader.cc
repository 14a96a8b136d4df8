#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "sim/scenario/error.h"
#include "sim/scenario/json_file.h"
#include "sim/scenario/reader.h"

namespace {

using goodsim::core::Duration;
using goodsim::scenario::ObjectReader;
using goodsim::scenario::ParamDoc;
using goodsim::scenario::ScenarioError;
using nlohmann::json;
namespace sc = goodsim::scenario;

// what() of the ScenarioError thrown by f(), or "" if nothing was thrown.
template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "";
}

std::shared_ptr<const std::string> file_name() {
  return std::make_shared<const std::string>("scenarios/x.json");
}

const ParamDoc* find_doc(const std::vector<ParamDoc>& docs, const std::string& key) {
  const auto it = std::find_if(docs.begin(), docs.end(),
                               [&](const ParamDoc& d) { return d.key == key; });
  return it == docs.end() ? nullptr : &*it;
}

// A model's from_json as the models layer would write it.
struct FakeLinkModel {
  int64_t chips = 0;
  Duration interval;
  double bandwidth = 0;
  std::string mode;
  int64_t link_count = 0;
  std::optional<double> target;

  static FakeLinkModel from_json(ObjectReader& r) {
    FakeLinkModel m;
    m.chips = r.count("chips", "Number of accelerators", 1);
    m.interval = r.duration("interval", Duration::minutes(30), "Checkpoint interval");
    m.bandwidth = r.bandwidth_bps("bandwidth", "Per-link bandwidth", 1e6);
    m.mode = r.choice("mode", {"blocking", "async"}, "blocking", "Checkpoint writes");
    m.target = r.optional_number("target_loss", "Stop at this loss", 0);
    r.fraction("overlap", 0.5, "Overlapped share of communication");
    for (ObjectReader link : r.object_list("links", "WAN links")) {
      link.string("from", "Source site");
      link.duration("latency", "One-way latency", Duration::zero(), Duration::seconds(10));
      ++m.link_count;
    }
    ObjectReader nested = r.object("storage", "Checkpoint storage");
    nested.bytes("size", "Checkpoint size");
    if (!r.describing() && m.chips < 2) r.fail("chips", "need at least 2 for this model");
    r.finish();
    return m;
  }
};

}  // namespace

TEST_CASE("ScenarioError joins file, path and message", "[scenario][reader]") {
  const ScenarioError full("scenarios/x.json", "cluster.chips", "expected a count >= 1, got -5");
  CHECK(std::string(full.what()) == "scenarios/x.json: cluster.chips: expected a count >= 1, got -5");
  CHECK(full.file() == "scenarios/x.json");
  CHECK(full.path() == "cluster.chips");
  CHECK(full.message() == "expected a count >= 1, got -5");
  CHECK(std::string(ScenarioError("", "seed", "bad").what()) == "seed: bad");
  CHECK(std::string(ScenarioError("f.json", "", "bad").what()) == "f.json: bad");
  CHECK(sc::join_path("", "seed") == "seed");
  CHECK(sc::join_path("policies", "1") == "policies.1");
}

TEST_CASE("edit distance and closest match", "[scenario][reader]") {
  CHECK(sc::edit_distance("chips", "chips") == 0);
  CHECK(sc::edit_distance("chps", "chips") == 1);
  CHECK(sc::edit_distance("cihps", "chips") == 1);  // adjacent swap
  CHECK(sc::edit_distance("Chips", "chips") == 0);
  CHECK(sc::edit_distance("", "abc") == 3);
  const std::vector<std::string> keys = {"chips", "hosts", "slices", "spares"};
  CHECK(sc::closest_match("chps", keys) == "chips");
  CHECK(sc::closest_match("slcies", keys) == "slices");
  CHECK(sc::closest_match("sparse", keys) == "spares");
  CHECK_FALSE(sc::closest_match("bandwidth", keys).has_value());
  CHECK_FALSE(sc::closest_match("x", {"y"}).has_value());
  CHECK(sc::key_hint("xyz", {"b", "a"}) == R"(valid keys are "a", "b")");
  CHECK(sc::key_hint("xyz", {}) == "no keys are allowed here");
}

TEST_CASE("ObjectReader: the object itself must be an object", "[scenario][reader]") {
  const json list = json::array();
  CHECK(error_of([&] { ObjectReader(list, "cluster", file_name()); }) ==
        "scenarios/x.json: cluster: expected an object, got an empty list");
  const json number = 5;
  CHECK(error_of([&] { ObjectReader(number, "", file_name()); }) ==
        "scenarios/x.json: expected an object, got 5");
}

TEST_CASE("ObjectReader: typed getters read values", "[scenario][reader]") {
  const json doc = json::parse(R"({
    "x": 2.5, "n": 1.2e6, "ns": "3e3", "d": "36h", "ds": 90, "bw": "25GB/s", "fl": "459TFLOPS",
    "b": "16GiB", "f": "25%", "on": true, "name": "demo", "mode": "async", "absent": null })");
  ObjectReader r(doc, "job", file_name());
  CHECK(r.number("x", "") == 2.5);
  CHECK(r.count("n", "") == 1'200'000);
  CHECK(r.count("ns", "") == 3000);
  CHECK(r.duration("d", "") == Duration::hours(36));
  CHECK(r.duration("ds", "") == Duration::seconds(90));
  CHECK(r.bandwidth_bps("bw", "") == 200e9);
  CHECK(r.flops("fl", "") == Approx(459e12));
  CHECK(r.bytes("b", "") == 16.0 * (1 << 30));
  CHECK(r.fraction("f", "") == 0.25);
  CHECK(r.boolean("on", ""));
  CHECK(r.string("name", "") == "demo");
  CHECK(r.choice("mode", {"blocking", "async"}, "") == "async");
  CHECK(r.has("x"));
  CHECK_FALSE(r.has("absent"));  // null counts as absent
  CHECK_FALSE(r.has("nope"));
  CHECK_NOTHROW(r.finish());
}

TEST_CASE("ObjectReader: defaults and optionals", "[scenario][reader]") {
  const json doc = json::parse(R"({"nulled": null})");
  ObjectReader r(doc, "", file_name());
  CHECK(r.number("a", 1.5, "") == 1.5);
  CHECK(r.count("b", 7, "") == 7);
  CHECK(r.duration("c", Duration::minutes(5), "") == Duration::minutes(5));
  CHECK(r.bandwidth_bps("d", 1e9, "") == 1e9);
  CHECK(r.flops("e", 2e14, "") == 2e14);
  CHECK(r.bytes("f", 4096, "") == 4096);
  CHECK(r.fraction("g", 0.1, "") == 0.1);
  CHECK(r.boolean("h", true, ""));
  CHECK(r.string("i", "dflt", "") == "dflt");
  CHECK(r.choice("j", {"p", "q"}, "q", "") == "q");
  CHECK(r.count("nulled", 3, "") == 3);
  CHECK_FALSE(r.optional_number("k", "").has_value());
  CHECK_FALSE(r.optional_count("k", "").has_value());
  CHECK_FALSE(r.optional_duration("k", "").has_value());
  CHECK_FALSE(r.optional_bandwidth_bps("k", "").has_value());
  CHECK_FALSE(r.optional_flops("k", "").has_value());
  CHECK_FALSE(r.optional_bytes("k", "").has_value());
  CHECK_FALSE(r.optional_fraction("k", "").has_value());
  CHECK_FALSE(r.optional_boolean("k", "").has_value());
  CHECK_FALSE(r.optional_string("k", "").has_value());
  CHECK_FALSE(r.optional_object("k").has_value());
  CHECK(r.optional_object_list("k").empty());
  CHECK(r.raw("k").is_null());
  CHECK_NOTHROW(r.finish());
}

TEST_CASE("ObjectReader: missing required keys", "[scenario][reader]") {
  const json doc = json::parse(R"({"cluster": {}})");
  ObjectReader root(doc, "", file_name());
  ObjectReader cluster = root.object("cluster");
  CHECK(error_of([&] { cluster.count("chips", ""); }) ==
        R"(scenarios/x.json: cluster: missing required key "chips")");
  CHECK(error_of([&] { root.duration("horizon", ""); }) ==
        R"(scenarios/x.json: missing required key "horizon")");
  CHECK_THAT(error_of([&] { root.object("job"); }), Catch::Contains(R"(missing required key "job")"));
  CHECK_THAT(error_of([&] { root.object_list("policies"); }),
             Catch::Contains(R"(missing required key "policies")"));
  for (auto get : std::vector<std::function<void()>>{
           [&] { cluster.number("k", ""); }, [&] { cluster.bandwidth_bps("k", ""); },
           [&] { cluster.flops("k", ""); }, [&] { cluster.bytes("k", ""); },
           [&] { cluster.fraction("k", ""); }, [&] { cluster.boolean("k", ""); },
           [&] { cluster.string("k", ""); }, [&] { cluster.choice("k", {"a"}, ""); }}) {
    CHECK(error_of(get) == R"(scenarios/x.json: cluster: missing required key "k")");
  }
}

TEST_CASE("ObjectReader: a missing key's misspelling comes first, with its suggestion",
          "[scenario][reader]") {
  // {"chps": 64} used to be reported as a missing "chips" only.
  const json doc = json::parse(R"({"cluster": {"chps": 64, "hosts": 2}})");
  ObjectReader root(doc, "", file_name());
  ObjectReader cluster = root.object("cluster");
  CHECK(error_of([&] { cluster.count("chips", ""); }) ==
        "scenarios/x.json: cluster.chps: unknown key; did you mean \"chips\"?\n"
        "scenarios/x.json: cluster: missing required key \"chips\"");
  // Collecting mode: the same two errors, in that order, and the unknown key only once.
  sc::ErrorList errors;
  ObjectReader collecting(doc, "", file_name(), &errors);
  collecting.object("cluster").count("chips", "");
  collecting.object("cluster").count("hosts", 1, "");
  collecting.finish();
  try {
    errors.throw_if_any();
    FAIL("no error");
  } catch (const ScenarioError& e) {
    REQUIRE(e.errors().size() == 2);
    CHECK(e.errors()[0].path() == "cluster.chps");
    CHECK(e.errors()[0].message() == "unknown key; did you mean \"chips\"?");
    CHECK(e.errors()[1].message() == "missing required key \"chips\"");
  }
}

TEST_CASE("ObjectReader: wrong types name path, expectation and value", "[scenario][reader]") {
  const json doc = json::parse(R"({"v": true, "s": "abc", "o": {"a": 1}, "l": [1]})");
  ObjectReader r(doc, "job", file_name());
  CHECK(error_of([&] { r.duration("v", ""); }) ==
        R"(scenarios/x.json: job.v: expected a duration string like "30s", got true)");
  CHECK(error_of([&] { r.number("s", ""); }) ==
        R"(scenarios/x.json: job.s: expected a number, got "abc")");
  CHECK_THAT(error_of([&] { r.count("o", ""); }),
             Catch::Contains("job.o: expected a count") && Catch::Contains("got an object"));
  CHECK_THAT(error_of([&] { r.bandwidth_bps("v", ""); }),
             Catch::Contains("job.v: expected a bandwidth"));
  CHECK_THAT(error_of([&] { r.flops("l", ""); }),
             Catch::Contains("job.l: expected a FLOP/s rate") && Catch::Contains("got a list"));
  CHECK_THAT(error_of([&] { r.bytes("v", ""); }), Catch::Contains("job.v: expected a byte size"));
  CHECK_THAT(error_of([&] { r.fraction("s", ""); }), Catch::Contains("job.s: expected a fraction"));
  CHECK(error_of([&] { r.boolean("s", ""); }) ==
        R"(scenarios/x.json: job.s: expected true or false, got "abc")");
  CHECK(error_of([&] { r.string("v", ""); }) ==
        "scenarios/x.json: job.v: expected a string, got true");
  CHECK(error_of([&] { r.object("s"); }) ==
        R"(scenarios/x.json: job.s: expected an object, got "abc")");
  CHECK(error_of([&] { r.object_list("o"); }) ==
        "scenarios/x.json: job.o: expected a list of objects, got an object");
  CHECK(error_of([&] { r.object_list("l"); }) ==
        "scenarios/x.json: job.l.0: expected an object, got 1");
}

TEST_CASE("ObjectReader: unit parse errors carry the path", "[scenario][reader]") {
  const json doc = json::parse(R"({"horizon": "3 parsecs", "bw": "5G", "n": "2.5"})");
  ObjectReader r(doc, "", file_name());
  CHECK_THAT(error_of([&] { r.duration("horizon", ""); }),
             Catch::StartsWith("scenarios/x.json: horizon: expected a duration like") &&
                 Catch::Contains("unknown unit \"parsecs\""));
  CHECK_THAT(error_of([&] { r.bandwidth_bps("bw", ""); }),
             Catch::StartsWith("scenarios/x.json: bw: expected a bandwidth"));
  CHECK_THAT(error_of([&] { r.count("n", ""); }),
             Catch::StartsWith("scenarios/x.json: n: expected a count"));
}

TEST_CASE("ObjectReader: range errors show the range and the value", "[scenario][reader]") {
  const json doc = json::parse(R"({"chips": -5, "big": 5000, "lr": 1.5, "frac": "150%",
      "d": "2y", "neg": -5, "bw": -1, "fl": 1e20, "b": "1TB"})");
  ObjectReader r(doc, "cluster", file_name());
  CHECK(error_of([&] { r.count("chips", "", 1); }) ==
        "scenarios/x.json: cluster.chips: expected a count >= 1, got -5");
  CHECK(error_of([&] { r.count("big", "", 1, 1000); }) ==
        "scenarios/x.json: cluster.big: expected a count in [1, 1000], got 5000");
  CHECK(error_of([&] { r.number("lr", "", -ObjectReader::kInf, 1); }) ==
        "scenarios/x.json: cluster.lr: expected a number <= 1, got 1.5");
  CHECK(error_of([&] { r.fraction("frac", ""); }) ==
        "scenarios/x.json: cluster.frac: expected a fraction in [0, 1], got 1.5");
  CHECK(error_of([&] { r.duration("d", "", Duration::zero(), Duration::days(365)); }) ==
        "scenarios/x.json: cluster.d: expected a duration in [0s, 1y], got 2y");
  CHECK(error_of([&] { r.duration("neg", ""); }) ==
        "scenarios/x.json: cluster.neg: expected a duration >= 0s, got -5s");
  CHECK(error_of([&] { r.bandwidth_bps("bw", ""); }) ==
        "scenarios/x.json: cluster.bw: expected a bandwidth >= 0bps, got -1bps");
  CHECK_THAT(error_of([&] { r.flops("fl", "", 0, 1e18); }),
             Catch::Contains("cluster.fl: expected a FLOP/s rate in [0FLOPS, 1EFLOPS]"));
  CHECK_THAT(error_of([&] { r.bytes("b", "", 0, 1e9); }),
             Catch::Contains("cluster.b: expected a byte size in [0B, 953.674MiB], got 931.323GiB"));
  CHECK(r.count("big", "", 1, 5000) == 5000);  // bounds are inclusive
}

TEST_CASE("ObjectReader: choice suggests the closest option", "[scenario][reader]") {
  const json doc = json::parse(R"({"mode": "asynch", "other": "zzz", "n": 3})");
  ObjectReader r(doc, "policies.0", file_name());
  const std::vector<std::string> options = {"blocking", "async"};
  CHECK(error_of([&] { r.choice("mode", options, ""); }) ==
        R"(scenarios/x.json: policies.0.mode: expected one of "blocking", "async", got "asynch"; did you mean "async"?)");
  CHECK(error_of([&] { r.choice("other", options, ""); }) ==
        R"(scenarios/x.json: policies.0.other: expected one of "blocking", "async", got "zzz")");
  CHECK_THAT(error_of([&] { r.choice("n", options, ""); }), Catch::Contains("got 3"));
}

TEST_CASE("ObjectReader: nested objects and lists have dotted paths", "[scenario][reader]") {
  const json doc = json::parse(R"({"policies": [{"learners": 4}, {"learners": -1}],
                                   "cluster": {"chips": 0}})");
  ObjectReader root(doc, "", file_name());
  auto policies = root.object_list("policies");
  REQUIRE(policies.size() == 2);
  CHECK(policies[0].path() == "policies.0");
  CHECK(policies[0].count("learners", "", 1) == 4);
  CHECK(error_of([&] { policies[1].count("learners", "", 1); }) ==
        "scenarios/x.json: policies.1.learners: expected a count >= 1, got -1");
  ObjectReader cluster = root.object("cluster");
  CHECK(cluster.key_path("chips") == "cluster.chips");
  CHECK(error_of([&] { cluster.fail("chips", "must be a multiple of 4"); }) ==
        "scenarios/x.json: cluster.chips: must be a multiple of 4");
  CHECK(error_of([&] { cluster.fail("", "too small"); }) == "scenarios/x.json: cluster: too small");
  CHECK(root.optional_object("cluster").has_value());
}

TEST_CASE("finish: unknown keys with did-you-mean", "[scenario][reader]") {
  const json doc = json::parse(R"({"cluster": {"chps": 8, "hosts": 2}})");
  ObjectReader root(doc, "", file_name());
  ObjectReader cluster = root.object("cluster");
  cluster.count("chips", 1, "");
  cluster.count("hosts", "");
  CHECK(error_of([&] { cluster.finish(); }) ==
        R"(scenarios/x.json: cluster.chps: unknown key; did you mean "chips"?)");
  // The root checks its children too.
  CHECK(error_of([&] { root.finish(); }) ==
        R"(scenarios/x.json: cluster.chps: unknown key; did you mean "chips"?)");
}

TEST_CASE("finish: lists valid keys when nothing is close", "[scenario][reader]") {
  const json doc = json::parse(R"({"zzz_other": 1, "bandwidth": 2, "seed": 1})");
  ObjectReader r(doc, "", file_name());
  r.count("seed", "");
  r.duration("horizon", Duration::hours(1), "");
  // Sorted key order: "bandwidth" is reported before "zzz_other".
  CHECK(error_of([&] { r.finish(); }) ==
        R"(scenarios/x.json: bandwidth: unknown key; valid keys are "horizon", "seed")");
  const json lone = json::parse(R"({"x": 1})");
  ObjectReader empty_reader(lone, "outputs", file_name());
  CHECK(error_of([&] { empty_reader.finish(); }) ==
        "scenarios/x.json: outputs.x: unknown key; no keys are allowed here");
}

TEST_CASE("finish: has(), raw() and repeated nested reads count as known",
          "[scenario][reader]") {
  const json doc = json::parse(R"({"legacy": 1, "blob": [1, 2], "cluster": {"a": 1, "b": 2},
                                   "items": [{"k": 1}]})");
  ObjectReader r(doc, "", file_name());
  CHECK(r.has("legacy"));
  CHECK(r.raw("blob").size() == 2);
  r.object("cluster").count("a", "");
  r.object("cluster").count("b", "");  // same child state: both keys known
  r.object_list("items")[0].count("k", "");
  CHECK_NOTHROW(r.finish());
  CHECK_NOTHROW(r.finish());  // idempotent
}

TEST_CASE("finish: unknown keys in list elements", "[scenario][reader]") {
  const json doc = json::parse(R"({"policies": [{"type": "a"}, {"type": "b", "lerners": 4}]})");
  ObjectReader r(doc, "", file_name());
  for (ObjectReader p : r.object_list("policies")) {
    p.string("type", "");
    p.count("learners", 1, "");
  }
  CHECK(error_of([&] { r.finish(); }) ==
        R"(scenarios/x.json: policies.1.lerners: unknown key; did you mean "learners"?)");
}

TEST_CASE("docs: every getter records a ParamDoc", "[scenario][reader]") {
  const json doc = json::parse(R"({"chips": 8})");
  ObjectReader r(doc, "cluster", file_name());
  r.count("chips", "Number of chips", 1);
  r.duration("swap", Duration::minutes(10), "Spare swap time");
  r.fraction("share", 0.25, "Share");
  r.count("chips", "read twice");  // recorded once
  const auto& docs = r.docs();
  REQUIRE(docs.size() == 3);
  CHECK(docs[0].key == "cluster.chips");
  CHECK(docs[0].kind == "count");
  CHECK(docs[0].required);
  CHECK(docs[0].range == ">= 1");
  CHECK(docs[0].help == "Number of chips");
  CHECK(docs[1].default_text == "10m");
  CHECK_FALSE(docs[1].required);
  CHECK(docs[1].range.empty());
  CHECK(docs[2].default_text == "0.25");
}

TEST_CASE("docs: list elements share one entry per parameter", "[scenario][reader]") {
  const json doc = json::parse(R"({"policies": [{"learners": 4}, {"learners": 8}]})");
  ObjectReader r(doc, "", file_name());
  for (ObjectReader p : r.object_list("policies", "Policies to compare")) {
    p.count("learners", 1, "Learners");
  }
  const auto& docs = r.docs();
  REQUIRE(docs.size() == 2);
  CHECK(docs[0].key == "policies");
  CHECK(docs[0].kind == "list of objects");
  CHECK(docs[1].key == "policies.*.learners");
  CHECK(docs[1].default_text == "1");
}

TEST_CASE("describe mode collects docs and never throws", "[scenario][reader]") {
  ObjectReader r = ObjectReader::describe();
  FakeLinkModel model;
  REQUIRE_NOTHROW(model = FakeLinkModel::from_json(r));
  CHECK(r.describing());
  CHECK(model.chips == 1);                          // placeholder, clamped to min 1
  CHECK(model.interval == Duration::minutes(30));   // default
  CHECK(model.bandwidth == 1e6);                    // placeholder clamped to min
  CHECK(model.mode == "blocking");
  CHECK_FALSE(model.target.has_value());
  CHECK(model.link_count == 1);                     // one describing element
  const auto& docs = r.docs();
  const ParamDoc* chips = find_doc(docs, "chips");
  REQUIRE(chips != nullptr);
  CHECK(chips->required);
  CHECK(chips->help == "Number of accelerators");
  const ParamDoc* bandwidth = find_doc(docs, "bandwidth");
  REQUIRE(bandwidth != nullptr);
  CHECK(bandwidth->unit == "bit/s");
  CHECK(bandwidth->range == ">= 1Mbps");
  const ParamDoc* mode = find_doc(docs, "mode");
  REQUIRE(mode != nullptr);
  CHECK(mode->kind == "choice");
  CHECK(mode->default_text == "\"blocking\"");
  CHECK(mode->range == R"(one of "blocking", "async")");
  CHECK(find_doc(docs, "links") != nullptr);
  const ParamDoc* latency = find_doc(docs, "links.*.latency");
  REQUIRE(latency != nullptr);
  CHECK(latency->range == "<= 10s");
  CHECK(find_doc(docs, "links.*.from") != nullptr);
  CHECK(find_doc(docs, "storage.size") != nullptr);
  CHECK(find_doc(docs, "target_loss") != nullptr);
}

TEST_CASE("describe mode placeholders for every kind", "[scenario][reader]") {
  ObjectReader r = ObjectReader::describe("model");
  CHECK(r.number("a", "") == 1.0);
  CHECK(r.number("a2", "", 5, 10) == 5.0);
  CHECK(r.number("a3", "", -10, -2) == -2.0);
  CHECK(r.count("b", "") == 1);
  CHECK(r.duration("c", "") == Duration::seconds(1));
  CHECK(r.duration("c2", "", Duration::hours(1)) == Duration::hours(1));
  CHECK(r.flops("e", "") == 1.0);
  CHECK(r.bytes("f", "") == 1.0);
  CHECK(r.fraction("g", "") == 0.5);
  CHECK_FALSE(r.boolean("h", ""));
  CHECK(r.string("i", "") == "");
  CHECK(r.choice("j", {"x", "y"}, "") == "x");
  CHECK(r.raw("k").is_null());
  CHECK_FALSE(r.has("a"));
  CHECK(r.optional_object("o").has_value());
  CHECK(r.object_list("l").at(0).path() == "model.l.*");
  CHECK(r.docs().front().key == "model.a");
  CHECK_NOTHROW(r.finish());
}

TEST_CASE("a normal read of the same model validates it", "[scenario][reader]") {
  const json doc = json::parse(R"({"chips": 4, "bandwidth": "10Gbps", "mode": "async",
      "links": [{"from": "a", "latency": "5ms"}], "storage": {"size": "1TB"}})");
  ObjectReader r(doc, "policies.0", file_name());
  const FakeLinkModel model = FakeLinkModel::from_json(r);
  CHECK(model.chips == 4);
  CHECK(model.link_count == 1);
  const json bad = json::parse(R"({"chips": 1, "bandwidth": "10Gbps",
      "links": [], "storage": {"size": "1TB"}})");
  ObjectReader rb(bad, "policies.0", file_name());
  CHECK(error_of([&] { FakeLinkModel::from_json(rb); }) ==
        "scenarios/x.json: policies.0.chips: need at least 2 for this model");
}

// ---- load_json_file ---------------------------------------------------------------------

namespace {

class TempFile {
 public:
  explicit TempFile(const std::string& content) {
    path_ = (std::filesystem::temp_directory_path() /
             ("goodsim_scenario_test_" + std::to_string(::getpid()) + "_" +
              std::to_string(reinterpret_cast<uintptr_t>(this)) + ".json"))
                .string();
    std::ofstream(path_) << content;
  }
  ~TempFile() { std::filesystem::remove(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace

TEST_CASE("load_json_file reads strict JSON", "[scenario][json_file]") {
  TempFile good(R"({"name": "x", "cluster": {"chips": 8}})");
  const json doc = sc::load_json_file(good.path());
  CHECK(doc["cluster"]["chips"] == 8);
}

TEST_CASE("load_json_file errors name file, line and column", "[scenario][json_file]") {
  TempFile bad("{\n  \"a\": 1,\n  \"b\": }\n");
  const std::string message = error_of([&] { sc::load_json_file(bad.path()); });
  CHECK_THAT(message, Catch::StartsWith(bad.path() + ": line 3, column 8: syntax error"));
  TempFile comment("{\n  // no comments\n  \"a\": 1\n}\n");
  CHECK_THAT(error_of([&] { sc::load_json_file(comment.path()); }),
             Catch::Contains(": line 2, column "));
  TempFile empty("");
  CHECK_THAT(error_of([&] { sc::load_json_file(empty.path()); }),
             Catch::Contains("line 1, column 1"));
  CHECK_THAT(error_of([] { sc::load_json_file("no/such/file.json"); }),
             Catch::StartsWith("no/such/file.json: cannot open"));
  const std::string dir = std::filesystem::temp_directory_path().string();
  CHECK_THAT(error_of([&] { sc::load_json_file(dir); }), Catch::Contains("is a directory"));
}

TEST_CASE("load_json_file rejects duplicate keys with their path", "[scenario][json_file]") {
  TempFile top(R"({"seed": 1, "seed": 2})");
  CHECK(error_of([&] { sc::load_json_file(top.path()); }) == top.path() + ": seed: duplicate key");
  TempFile nested(R"({"policies": [{"a": 1}, {"b": [1, {"c": 1}], "c": {"x": 1, "x": 2}}]})");
  CHECK(error_of([&] { sc::load_json_file(nested.path()); }) ==
        nested.path() + ": policies.1.c.x: duplicate key");
  TempFile same_key_other_objects(R"({"a": {"x": 1}, "b": {"x": 2}, "x": [{"x": 1}, {"x": 2}]})");
  CHECK_NOTHROW(sc::load_json_file(same_key_other_objects.path()));
}
