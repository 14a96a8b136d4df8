// Whole runs: determinism, common random numbers across policies, outputs.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>

#include "models/loss/loss_config.h"
#include "models/resource_estimate.h"
#include "sim/output/summary.h"
#include "tests/support/scenarios.h"

namespace goodsim::models {
namespace {

nlohmann::json two_policy_doc() {
  nlohmann::json doc = testing::small_scenario("20d", "100d", "1h", "5m");
  doc["policies"].push_back({{"name", "dp-slow"}, {"type", "data_parallel"}, {"restart_time", "30m"}});
  return doc;
}

TEST_CASE("same seed gives an identical summary; another seed a different fingerprint",
          "[models][runner]") {
  const auto prepared = testing::prepare_doc(two_policy_doc());
  const auto a = output::summary_json(run_scenario(prepared, 11, nullptr));
  const auto b = output::summary_json(run_scenario(prepared, 11, nullptr));
  const auto c = output::summary_json(run_scenario(prepared, 12, nullptr));
  CHECK(a.dump() == b.dump());
  CHECK(a["policies"][0]["fingerprint"] != c["policies"][0]["fingerprint"]);
  CHECK(a["policies"][0]["failures"].get<uint64_t>() > 0);
}

std::vector<std::string> failure_lines(const std::filesystem::path& file, const std::string& policy) {
  std::ifstream in(file);
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);) {
    const auto j = nlohmann::json::parse(line);
    if (j["policy"] == policy && (j["event"] == "failure" || j["event"] == "repair")) {
      out.push_back(j["t"].dump() + j["event"].get<std::string>() + j["id"].dump());
    }
  }
  return out;
}

TEST_CASE("every policy of a run faces the same failure history", "[models][runner]") {
  const auto prepared = testing::prepare_doc(two_policy_doc());
  const auto dir = std::filesystem::temp_directory_path() / "goodsim_test_crn";
  std::filesystem::create_directories(dir);
  output::EventLog log(dir / "events.jsonl");
  const output::RunResult run = run_scenario(prepared, 5, &log);
  log.commit();
  REQUIRE(run.policies.size() == 2);
  CHECK(run.policies[0].failures == run.policies[1].failures);
  const auto fast = failure_lines(dir / "events.jsonl", "dp");
  const auto slow = failure_lines(dir / "events.jsonl", "dp-slow");
  CHECK(fast.size() > 10);
  CHECK(fast == slow);
  // Different restart times: different outcomes on the same history.
  CHECK(run.policies[0].goodput > run.policies[1].goodput);
  std::filesystem::remove_all(dir);
}

TEST_CASE("outputs are written with the documented shape", "[output]") {
  const auto prepared = testing::prepare_doc(two_policy_doc());
  const output::RunResult run = run_scenario(prepared, 1, nullptr);
  const auto dir = std::filesystem::temp_directory_path() / "goodsim_test_outputs";
  std::filesystem::remove_all(dir);
  output::write_run_outputs(run, dir);
  std::ifstream in(dir / "summary.json");
  const auto s = nlohmann::json::parse(in);
  for (const char* key : {"format", "scenario", "seed", "version", "goodsim_version", "horizon_s",
                          "chips", "sets", "policies", "resolved_scenario"}) {
    CHECK(s.contains(key));
  }
  const auto& p = s["policies"][0];
  for (const char* key : {"name", "type", "goodput", "ettr", "fleet_goodput", "uptime",
                          "downtime_s", "outages", "longest_outage_s", "checkpoint_pauses",
                          "checkpoint_pause_s", "failures", "failure_causes", "tokens", "steps",
                          "wan_bytes", "badput", "final_loss", "time_to_target_s", "cost",
                          "fingerprint", "diagnostics", "learners"}) {
    CHECK(p.contains(key));
  }
  CHECK(p.size() == 23);
  CHECK(p["final_loss"].is_null());
  CHECK(p["cost"].is_null());  // no cost section
  CHECK(p["badput"].size() == 7);
  std::ifstream csv(dir / "timeseries.csv");
  std::string header;
  std::getline(csv, header);
  CHECK(header.rfind("policy,time_s,", 0) == 0);
  size_t rows = 0;
  for (std::string line; std::getline(csv, line);) ++rows;
  CHECK(rows == 2 * 201);  // horizon/200 sampling, both ends included, two policies
  // No temporary files are left behind.
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    CHECK(entry.path().filename().string().find(".tmp-") == std::string::npos);
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("time to a token target is the step that reaches it", "[models][runner]") {
  nlohmann::json doc = testing::small_scenario("1h", "", "", "5m");
  doc["job"]["target_tokens"] = 2.5e8;  // 250 steps of 1e6 tokens, 1 s each
  const auto r = run_policy(testing::prepare_doc(doc), 0, 1, nullptr);
  REQUIRE(r.time_to_target_s.has_value());
  CHECK(*r.time_to_target_s == 250.0);
}
}  // namespace
}  // namespace goodsim::models

namespace goodsim::models {
namespace {

TEST_CASE("a loss model sees the durable steps and ends the run at the target loss",
          "[models][runner][loss]") {
  nlohmann::json doc = testing::small_scenario("1h", "", "", "5m");
  doc["loss"] = {{"type", "scaling_law"}};
  const auto prepared = testing::prepare_doc(doc);
  const output::PolicyResult r = run_policy(prepared, 0, 1, nullptr);
  // The same model driven by hand: 3600 steps of 1e6 tokens, one learner.
  auto model = loss::make_loss_model(*prepared.loss);
  model->start({1e9, 1e6, 1, 0, 1}, core::Rng(1));
  model->on_inner_steps(0, 3600, 1e6);
  REQUIRE(r.final_loss.has_value());
  CHECK(*r.final_loss == Approx(model->loss()).epsilon(1e-12));
  CHECK(r.series.back().loss.has_value());

  // A target between the losses after 30 and 60 minutes: reached at a
  // sample (every 18 s here), and the run stops there.
  auto half = loss::make_loss_model(*prepared.loss);
  half->start({1e9, 1e6, 1, 0, 1}, core::Rng(1));
  half->on_inner_steps(0, 1800, 1e6);
  doc["job"]["target_loss"] = (half->loss() + model->loss()) / 2;
  const output::PolicyResult t = run_policy(testing::prepare_doc(doc), 0, 1, nullptr);
  REQUIRE(t.time_to_target_s.has_value());
  CHECK(*t.time_to_target_s > 1800);
  CHECK(*t.time_to_target_s < 3600);
  CHECK(t.series.back().time_s == Approx(*t.time_to_target_s));
  CHECK(*t.final_loss <= *doc["job"]["target_loss"].get_ptr<const double*>());
}

// Four policies of different kinds and costs, so that parallel runs finish out of order.
nlohmann::json four_policy_doc() {
  nlohmann::json doc = two_policy_doc();
  doc["horizon"] = "1d";
  doc["failures"][0]["mtbf"] = "20d";
  doc["cluster"]["spare_slices"] = 1;
  doc["policies"].push_back({{"name", "elastic"}, {"type", "elastic_data_parallel"}});
  doc["policies"].push_back({{"name", "decoupled"}, {"type", "decoupled_diloco"}, {"learners", 3}});
  return doc;
}

std::string file_text(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The summary and the event log (capped at `max_bytes`) of a run with `jobs` threads.
std::pair<std::string, std::string> run_with_jobs(const PreparedScenario& prepared,
                                                  unsigned jobs, uint64_t max_bytes,
                                                  uint64_t& dropped) {
  const auto file = std::filesystem::temp_directory_path() /
                    ("goodsim_test_jobs_" + std::to_string(jobs) + ".jsonl");
  output::EventLog log(file, max_bytes);
  const auto summary = output::summary_json(run_scenario(prepared, 3, &log, nullptr, {}, jobs));
  log.commit();
  dropped = log.dropped();
  std::string text = file_text(file);
  std::filesystem::remove(file);
  return {summary.dump(), text};
}

TEST_CASE("policies run in parallel give the summary and the event log of one after another",
          "[models][runner]") {
  const auto prepared = testing::prepare_doc(four_policy_doc());
  uint64_t dropped_one = 0, dropped_par = 0;
  const auto one = run_with_jobs(prepared, 1, output::EventLog::kDefaultMaxBytes, dropped_one);
  REQUIRE(one.second.find("\"policy\":\"decoupled\"") != std::string::npos);
  for (unsigned jobs : {2u, 3u, 8u}) {
    const auto par = run_with_jobs(prepared, jobs, output::EventLog::kDefaultMaxBytes, dropped_par);
    CHECK(par.first == one.first);
    CHECK(par.second == one.second);
    CHECK(dropped_par == 0);
  }
  // A cap that the log passes in the middle: the same lines, marker and drop count.
  const uint64_t cap = one.second.size() / 2;
  const auto capped_one = run_with_jobs(prepared, 1, cap, dropped_one);
  const auto capped_par = run_with_jobs(prepared, 3, cap, dropped_par);
  CHECK(dropped_one > 0);
  CHECK(capped_par.second == capped_one.second);
  CHECK(dropped_par == dropped_one);
  CHECK(capped_one.second.find("\"truncated\":true") != std::string::npos);
}

TEST_CASE("longest_first orders by decreasing work, ties in policy order", "[models][runner]") {
  CHECK(longest_first({}).empty());
  CHECK(longest_first({1, 5, 5, 2, 9}) == std::vector<size_t>{4, 1, 2, 3, 0});
  CHECK(longest_first({7, 7, 7}) == std::vector<size_t>{0, 1, 2});
}

// The longest policies last: two single-learner policies, then DiLoCo with 2 learners,
// then Decoupled DiLoCo with 4.
nlohmann::json longest_last_doc() {
  nlohmann::json doc = testing::small_scenario("1d", "20d", "1h", "5m", 8);
  doc["policies"].push_back({{"name", "elastic"}, {"type", "elastic_data_parallel"}});
  doc["policies"].push_back({{"name", "diloco"}, {"type", "diloco"}, {"learners", 2}});
  doc["policies"].push_back({{"name", "decoupled"}, {"type", "decoupled_diloco"}, {"learners", 4}});
  return doc;
}

TEST_CASE("parallel runs start the policy with the most expected work first, with the outputs "
          "of one after another", "[models][runner]") {
  const auto prepared = testing::prepare_doc(longest_last_doc());
  const ResourceEstimate estimate = estimate_resources(prepared);
  REQUIRE(estimate.events_per_run > 0);
  const std::vector<double> work = policy_work(prepared, estimate);
  const double one = estimate.events_per_run;
  CHECK(work == std::vector<double>{one, one, 2 * one, 4 * one});
  CHECK(longest_first(work) == std::vector<size_t>{3, 2, 0, 1});
  uint64_t dropped_one = 0, dropped_par = 0;
  const auto sequential = run_with_jobs(prepared, 1, output::EventLog::kDefaultMaxBytes, dropped_one);
  REQUIRE(sequential.second.find("\"policy\":\"decoupled\"") != std::string::npos);
  for (unsigned jobs : {2u, 4u}) {
    const auto par = run_with_jobs(prepared, jobs, output::EventLog::kDefaultMaxBytes, dropped_par);
    CHECK(par.first == sequential.first);
    CHECK(par.second == sequential.second);
  }
}

TEST_CASE("a policy with one learner per site counts the layout's sites as its learners",
          "[models][runner]") {
  nlohmann::json doc = testing::small_scenario("1d", "20d", "1h", "5m", 12, 2);
  doc["cluster"]["sites"] = {{{"name", "a"}}, {{"name", "b"}}, {{"name", "c"}}};
  doc["cluster"]["links"] = {
      {{"from", "a"}, {"to", "b"}, {"bandwidth", "5Gbps"}, {"latency", "20ms"}},
      {{"from", "b"}, {"to", "c"}, {"bandwidth", "5Gbps"}, {"latency", "20ms"}}};
  doc["policies"].push_back({{"name", "site"}, {"type", "diloco"}, {"placement", "per_site"}});
  doc["policies"].push_back({{"name", "two"}, {"type", "diloco"}, {"learners", 2}});
  const auto prepared = testing::prepare_doc(doc);
  const ResourceEstimate estimate = estimate_resources(prepared);
  const double one = estimate.events_per_run;
  CHECK(policy_work(prepared, estimate) == std::vector<double>{one, 3 * one, 2 * one});
}

TEST_CASE("two threads start with the two policies of most expected work", "[models][runner]") {
  const auto prepared = testing::prepare_doc(longest_last_doc());
  // Each policy reports progress after its first slice; a thread's first report waits for
  // the other thread's, so neither can finish its first policy and take a third before
  // both have said which policy they started with.
  std::mutex mutex;
  std::condition_variable cv;
  std::vector<std::string> started;
  const RunProgress progress = [&](const std::string& policy, double, double, uint64_t) {
    std::unique_lock lock(mutex);
    if (std::find(started.begin(), started.end(), policy) != started.end()) return;
    started.push_back(policy);
    cv.notify_all();
    cv.wait_for(lock, std::chrono::seconds(30), [&] { return started.size() >= 2; });
  };
  run_scenario(prepared, 3, nullptr, nullptr, progress, 2);
  REQUIRE(started.size() == 4);
  CHECK(std::set<std::string>(started.begin(), started.begin() + 2) ==
        std::set<std::string>{"decoupled", "diloco"});
}

TEST_CASE("a parallel run reports the first failing policy's error, in policy order",
          "[models][runner]") {
  auto prepared = testing::prepare_doc(four_policy_doc());
  prepared.max_events = 50;  // every policy passes it
  CHECK_THROWS_WITH(run_scenario(prepared, 3, nullptr, nullptr, {}, 4),
                    Catch::Contains("policy \"dp\" was stopped"));
}

}  // namespace
}  // namespace goodsim::models
