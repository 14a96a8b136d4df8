// Every shipped scenario (scenarios/*.json), run for real (its own horizon
// and seed, as `goodsim run` runs it), against the fingerprints and summaries
// stored in tests/golden/shipped_fingerprints.json: a change that moves an
// executed event or a summary figure of a shipped scenario fails here.
//
// Scenarios that took more than 2 CPU-seconds in a Release build when the
// file was written are marked "slow" and run only with GOODSIM_FINGERPRINTS_ALL=1.
// scripts/update-fingerprints.sh rewrites the file (GOODSIM_UPDATE_FINGERPRINTS=1
// runs every scenario and writes it); a changed fingerprint must be explained
// in the commit that changes it.
#include <catch2/catch.hpp>

#include <ctime>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "models/registry.h"
#include "models/runner.h"
#include "sim/output/event_log.h"
#include "sim/output/summary.h"

namespace goodsim::models {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kRoot = GOODSIM_SOURCE_DIR;
const fs::path kGolden = kRoot / "tests/golden/shipped_fingerprints.json";
constexpr double kSlowSeconds = 2.0;

bool env_set(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && std::string(v) == "1";
}

std::vector<fs::path> shipped_scenarios() {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(kRoot / "scenarios")) {
    if (e.is_regular_file() && e.path().extension() == ".json") out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// FNV-1a over the text: a short, stable digest of a summary.
std::string digest(const std::string& text) {
  uint64_t h = 14695981039346656037ull;
  for (const unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return fmt::format("{:016x}", h);
}

struct Outcome {
  json policies = json::object();  // name -> {fingerprint, summary}
  json summaries = json::object();  // name -> the policy's summary (for messages)
  double seconds = 0;
};

// Runs `file` as `goodsim run` does: its seed, an event log if it asks for one.
Outcome run_file(const fs::path& file) {
  std::ifstream in(file);
  const json doc = json::parse(in);
  static const Registry registry = builtin_registry();
  const PreparedScenario prepared = prepare(doc, file.string(), registry);
  std::unique_ptr<output::EventLog> events;
  const fs::path log = fs::temp_directory_path() / ("goodsim-golden-" + file.stem().string());
  if (prepared.scenario.outputs.events) events = std::make_unique<output::EventLog>(log);
  const std::clock_t t0 = std::clock();  // CPU time: the machine may be shared
  const output::RunResult r = run_scenario(prepared, prepared.scenario.seed, events.get());
  Outcome o;
  o.seconds = static_cast<double>(std::clock() - t0) / CLOCKS_PER_SEC;
  const nlohmann::ordered_json summary = output::summary_json(r);
  for (auto p : summary["policies"]) {
    const std::string name = p["name"].get<std::string>();
    const std::string fingerprint = p["fingerprint"].get<std::string>();
    p.erase("fingerprint");
    o.policies[name] = {{"fingerprint", fingerprint}, {"summary", digest(p.dump())}};
    o.summaries[name] = p;
  }
  return o;
}

void write_golden() {
  json out = {{"note", "written by scripts/update-fingerprints.sh; see "
                       "tests/models/test_shipped_fingerprints.cc"},
              {"scenarios", json::object()}};
  for (const fs::path& file : shipped_scenarios()) {
    const Outcome o = run_file(file);
    out["scenarios"][file.filename().string()] = {{"slow", o.seconds > kSlowSeconds},
                                                  {"policies", o.policies}};
    WARN(file.filename().string() << ": " << o.seconds << " s");
  }
  std::ofstream(kGolden) << out.dump(2) << "\n";
}

TEST_CASE("shipped scenarios keep their stored fingerprints and summaries", "[golden]") {
  if (env_set("GOODSIM_UPDATE_FINGERPRINTS")) return write_golden();
  std::ifstream in(kGolden);
  REQUIRE(in.good());
  const json golden = json::parse(in)["scenarios"];
  const bool all = env_set("GOODSIM_FINGERPRINTS_ALL");
  size_t checked = 0;
  for (const fs::path& file : shipped_scenarios()) {
    const std::string name = file.filename().string();
    INFO(name << " (new scenario or changed results: scripts/update-fingerprints.sh)");
    REQUIRE(golden.contains(name));
    const json& want = golden[name];
    if (want["slow"].get<bool>() && !all) continue;
    const Outcome got = run_file(file);
    for (const auto& [policy, expected] : want["policies"].items()) {
      INFO("policy " << policy << "; its summary now: " << got.summaries.value(policy, json()).dump());
      REQUIRE(got.policies.contains(policy));
      CHECK(got.policies[policy]["fingerprint"] == expected["fingerprint"]);
      CHECK(got.policies[policy]["summary"] == expected["summary"]);
    }
    CHECK(got.policies.size() == want["policies"].size());
    ++checked;
  }
  CHECK(golden.size() == shipped_scenarios().size());  // no stale entries
  CHECK(checked > 0);
}

}  // namespace
}  // namespace goodsim::models
