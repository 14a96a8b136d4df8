// The layer-level step model (job.layers) and fragment transfers: the step
// DAG against hand-computed schedules, its limits, monotonicity, and runs
// through the runner against closed forms.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "models/policy/fragment_transfer.h"
#include "models/policy/layer_step_model.h"
#include "sim/output/event_log.h"
#include "tests/support/scenarios.h"

namespace goodsim::models::policy {
namespace {

core::Duration sec(double s) { return core::Duration::from_seconds(s); }
ReduceCost intra_only(double s) { return {sec(s), sec(0), sec(0)}; }

// Two sites of one 4-chip slice each over one link; `layers` 0: no layer model.
nlohmann::json two_sites(const std::string& bandwidth, int layers) {
  nlohmann::json doc = {
      {"name", "layers"},
      {"seed", 1},
      {"horizon", "1h"},
      {"cluster",
       {{"chips", 8}, {"chips_per_host", 4}, {"hosts_per_slice", 1},
        {"sites", {{{"name", "a"}}, {{"name", "b"}}}},
        {"links", {{{"from", "a"}, {"to", "b"}, {"bandwidth", bandwidth}, {"latency", "1ms"}}}}}},
      {"job", {{"params", 1e9}, {"tokens_per_step", 1e6}, {"step_time", "100ms"}}},
      {"failures", nlohmann::json::array()},
      {"policies", {{{"name", "dp"}, {"type", "data_parallel"}, {"restart_time", "1m"}}}}};
  if (layers > 0) doc["job"]["layers"] = layers;
  return doc;
}

double goodput(const nlohmann::json& doc, size_t policy = 0) {
  return run_policy(testing::prepare_doc(doc), policy, 1, nullptr).goodput;
}

TEST_CASE("layer DAG: two uniform layers, a fast and a slow link", "[models][layers]") {
  // compute 5 s, u = 5 / (3 x 2 - 1) = 1 s: F1 F2 [0,2], A2 [2,3], W2 [3,4], W1 [4,5].
  const LayerStepModel m({1.0, 1.0}, sec(5));
  // Fast: R2 [4, 4.5], R1 [5, 5.5].
  CHECK(m.step_time(intra_only(1)).seconds_f() == Approx(5.5).epsilon(1e-12));
  // Slow: R2 [4, 6], R1 [6, 8].
  CHECK(m.step_time(intra_only(4)).seconds_f() == Approx(8.0).epsilon(1e-12));
  // Two links in series: intra R2 [4, 4.5], R1 [5, 5.5]; WAN R2 [4.5, 6.5],
  // R1 [6.5, 8.5]; plus 0.1 s latency.
  CHECK(m.step_time({sec(1), sec(4), sec(0.1)}).seconds_f() == Approx(8.6).epsilon(1e-12));
}

TEST_CASE("layer DAG: three layers of different sizes", "[models][layers]") {
  // p = 1, 2, 3; compute 17 s, u = 17 / (3 x 6 - 1) = 1 s. Forward [0, 6];
  // A3 [6, 9], W3 [9, 12], A2 [12, 14], W2 [14, 16], W1 [16, 17].
  const LayerStepModel m({1.0, 2.0, 3.0}, sec(17));
  // Slow (12 s in all): R3 6 s [12, 18], R2 4 s [18, 22], R1 2 s [22, 24].
  CHECK(m.step_time(intra_only(12)).seconds_f() == Approx(24.0).epsilon(1e-12));
  // Fast (1.2 s): R3 [12, 12.6], R2 [16, 16.4], R1 [17, 17.2].
  CHECK(m.step_time(intra_only(1.2)).seconds_f() == Approx(17.2).epsilon(1e-12));
}

// Two uniform layers, compute 5 s, u = 1 s: F1 [0,1], F2 [1,2], A2 [2,3],
// W2 [3,4], W1 [4,5]. A reduce of W s over the WAN (no latency unless given);
// the next step's F1 starts at 5 (1 + tau) and F2 one second later.
double stall(const std::vector<uint32_t>& layers, double wan, uint64_t tau, double latency = 0) {
  const LayerStepModel m({1.0, 1.0}, sec(5));
  return m.exchange_delay(layers, {sec(0), sec(wan), sec(latency)}, tau).seconds_f();
}

TEST_CASE("layer DAG, two layers: the reduce of both (data-parallel)", "[models][layers]") {
  // R2 [4, 4 + W/2]; R1 [max(4 + W/2, 5), .. + W/2]. Up to W = 2 the link keeps
  // up with the backward and only R1 is exposed (W/2); beyond, the link is
  // saturated from 4 on and R1 ends at 4 + W (stall W - 1). They cross at W = 2.
  CHECK(stall({0, 1}, 1, 0) == Approx(0.5).epsilon(1e-12));
  CHECK(stall({0, 1}, 2, 0) == Approx(1.0).epsilon(1e-12));
  CHECK(stall({0, 1}, 6, 0) == Approx(5.0).epsilon(1e-12));
  for (double w : {0.5, 1.0, 2.0, 3.0, 6.0}) {
    const LayerStepModel m({1.0, 1.0}, sec(5));
    const ReduceCost c{sec(0), sec(w), sec(0.01)};
    CHECK(m.step_time(c).seconds_f() ==
          Approx(5 + m.exchange_delay({0, 1}, c, 0).seconds_f()).epsilon(1e-12));
  }
}

TEST_CASE("layer DAG, two layers: one layer's exchange gates only its forward",
          "[models][layers]") {
  // Top layer alone: R2 [4, 4 + W] against F2 at 6: hidden up to W = 2, then W - 2.
  CHECK(stall({1}, 1.5, 0) == 0.0);
  CHECK(stall({1}, 2, 0) == Approx(0.0).margin(1e-12));
  CHECK(stall({1}, 5, 0) == Approx(3.0).epsilon(1e-12));
  // Bottom layer alone: R1 [5, 5 + W] against F1 at 5: fully exposed.
  CHECK(stall({0}, 1, 0) == Approx(1.0).epsilon(1e-12));
  // tau = 1 steps of overlap move the gates 5 s later: F1 at 10, F2 at 11.
  CHECK(stall({1}, 7, 1) == Approx(0.0).margin(1e-12));
  CHECK(stall({1}, 9, 1) == Approx(2.0).epsilon(1e-12));
  CHECK(stall({0}, 4, 1) == 0.0);
  CHECK(stall({0}, 6, 1) == Approx(1.0).epsilon(1e-12));
  // The latency delays each reduce's result: R2 ends at 4 + W + latency.
  CHECK(stall({1}, 1.75, 0, 0.25) == Approx(0.0).margin(1e-12));
  CHECK(stall({1}, 2, 0, 0.25) == Approx(0.25).epsilon(1e-9));
}

TEST_CASE("layer DAG limits: infinite bandwidth, one layer", "[models][layers]") {
  const LayerStepModel many(std::vector<double>(48, 1.0), sec(0.8));
  CHECK(many.step_time({sec(0), sec(0), sec(0)}) == sec(0.8));
  // One layer: nothing to overlap, the layer-free model with comm_overlap 0.
  const LayerStepModel one({1.0}, sec(2));
  CHECK(one.step_time({sec(0.5), sec(3), sec(0.04)}).seconds_f() ==
        Approx(2 + 0.5 + 3 + 0.04).epsilon(1e-12));
  // ... and an exchange is the layer-free block less tau steps of compute.
  CHECK(one.exchange_delay({0}, {sec(0), sec(3), sec(0.04)}, 0).seconds_f() ==
        Approx(3.04).epsilon(1e-12));
  CHECK(one.exchange_delay({0}, {sec(0), sec(3), sec(0.04)}, 1).seconds_f() ==
        Approx(1.04).epsilon(1e-12));
  CHECK(one.exchange_delay({0}, {sec(0), sec(3), sec(0.04)}, 2) == core::Duration::zero());
}

TEST_CASE("layer DAG: a cheaper reduce never lengthens the step; overlap beats none",
          "[models][layers]") {
  const LayerStepModel m({5.0, 1.0, 2.0, 8.0, 3.0, 3.0}, sec(1));
  const LayerStepModel flat({1.0}, sec(1));
  double previous = 1e300;
  for (double wan = 10; wan > 1e-4; wan /= 1.7) {
    const ReduceCost c{sec(wan / 4), sec(wan), sec(0.01)};
    const double t = m.step_time(c).seconds_f();
    CHECK(t <= previous + 1e-9);
    CHECK(t >= 1.0);
    CHECK(t <= flat.step_time(c).seconds_f() + 1e-9);
    previous = t;
  }
}

TEST_CASE("layer DAG: exposed() caches one entry per distinct cost", "[models][layers]") {
  LayerStepModel m(std::vector<double>(24, 1.0), sec(0.1));
  const ReduceCost a{sec(0.01), sec(0.2), sec(0.001)};
  const ReduceCost b{sec(0.01), sec(0.02), sec(0.001)};
  CHECK(m.exposed(a) == m.step_time(a) - sec(0.1));
  CHECK(m.exposed(a) == m.step_time(a) - sec(0.1));
  CHECK(m.exposed(b) == m.step_time(b) - sec(0.1));
  CHECK(m.cached() == 2);
}

// Goodput over a 1 h run is exact to within a step at the run's edge: 0.2 s / 1 h.
TEST_CASE("data_parallel with job.layers: goodput from the layer DAG", "[models][layers]") {
  // 2e9 gradient bytes over one 160 Gbps link: WAN work 0.1 s, latency 1 ms.
  // Without layers: step 0.1 + 0.1 + 0.001.
  CHECK(goodput(two_sites("160Gbps", 0)) == Approx(0.1 / 0.201).epsilon(1e-4));
  // Two layers, u = 0.02 s: W2 ends at 0.08, W1 at 0.1; R2 [0.08, 0.13],
  // R1 [0.13, 0.18], + 1 ms.
  CHECK(goodput(two_sites("160Gbps", 2)) == Approx(0.1 / 0.181).epsilon(1e-4));
  // One layer: the same as no layer model with comm_overlap 0.
  CHECK(goodput(two_sites("160Gbps", 1)) == Approx(0.1 / 0.201).epsilon(1e-4));
}

TEST_CASE("job.layer_params must list one positive number per layer", "[models][layers]") {
  nlohmann::json doc = two_sites("10Gbps", 3);
  doc["job"]["layer_params"] = {1, 2};
  CHECK_THROWS_WITH(testing::prepare_doc(doc), Catch::Contains("job.layer_params"));
  doc["job"]["layer_params"] = {1, 2, -1};
  CHECK_THROWS_WITH(testing::prepare_doc(doc), Catch::Contains("positive"));
  doc["job"]["layer_params"] = {1, 2, 3};
  CHECK_NOTHROW(testing::prepare_doc(doc));
  doc["job"].erase("layers");
  CHECK_THROWS_WITH(testing::prepare_doc(doc), Catch::Contains("needs \"layers\""));
}

TEST_CASE("fragment bytes: consecutive and strided layers, quantized", "[models][layers]") {
  scenario::JobSpec job;
  job.gradient_bytes = 60;
  FragmentTransfer t;
  CHECK(t.bytes(job, 3) == std::vector<double>{20, 20, 20});
  t.bits = 4;
  CHECK(t.bytes(job, 3) == std::vector<double>{5, 5, 5});
  t.bits = 16;
  job.layer_params = {1, 2, 3, 4, 5};  // sum 15: 4 bytes per parameter unit
  CHECK(t.bytes(job, 2) == std::vector<double>{12, 48});  // layers {0,1}, {2,3,4}
  t.layout = FragmentLayout::kStrided;
  CHECK(t.bytes(job, 2) == std::vector<double>{36, 24});  // layers {0,2,4}, {1,3}
}

TEST_CASE("fragment bytes: more fragments never raise the largest one", "[models][layers]") {
  scenario::JobSpec job;
  job.gradient_bytes = 2e9;
  job.layer_params.assign(24, 1.0);
  for (auto layout : {FragmentLayout::kConsecutive, FragmentLayout::kStrided}) {
    FragmentTransfer t;
    t.layout = layout;
    double previous = 1e300;
    for (uint32_t p = 1; p <= 24; ++p) {
      const auto b = t.bytes(job, p);
      const double largest = *std::max_element(b.begin(), b.end());
      CHECK(largest <= previous);
      previous = largest;
    }
  }
}

// Streaming DiLoCo over two sites (one learner each), H = 20, 4 fragments.
nlohmann::json streaming(const std::string& bandwidth, int overlap, int bits) {
  nlohmann::json doc = two_sites(bandwidth, 8);
  doc["policies"] = {{{"name", "s"}, {"type", "diloco"}, {"placement", "per_site"},
                      {"inner_steps", 20}, {"fragments", 4}, {"overlap_steps", overlap},
                      {"transfer_bits", bits}}};
  return doc;
}

TEST_CASE("diloco with transfer_bits: a quarter of the bytes at 4 bits", "[models][layers]") {
  // Plain DiLoCo, H = 20: a 2-site ring moves each fragment once per hop;
  // 4 bits: 5e8 bytes = 4e9 bits over 10 Gbps = 0.4 s + 1 ms per outer step.
  // 8 layers, u = 0.1 / 23 s: layer 8's reduce leaves when W_8 ends (10 u),
  // the link is busy from there on and R_1 ends at 10 u + 0.4 + 0.001,
  // against F_1 of the next step at 0.1.
  nlohmann::json doc = streaming("10Gbps", 0, 4);
  doc["policies"][0]["fragments"] = 1;
  const double stall = 1.0 / 23 + 0.401 - 0.1;
  CHECK(goodput(doc) == Approx(2.0 / (2.0 + stall)).epsilon(1e-3));
}

// Two sites without latency, two layers (u = 0.02 s: W2 ends at 0.08, W1 at
// 0.1; the next F1 at 0.1, F2 at 0.12), DiLoCo with H = 10 (1 s of compute
// per outer step) in `fragments` consecutive fragments; the whole model's
// exchange takes W = 16e9 bits / bandwidth.
nlohmann::json two_layer_diloco(const std::string& bandwidth, int fragments, int overlap) {
  nlohmann::json doc = two_sites(bandwidth, 2);
  doc["cluster"]["links"][0]["latency"] = "0ms";
  doc["policies"] = {{{"name", "d"}, {"type", "diloco"}, {"placement", "per_site"},
                      {"inner_steps", 10}, {"fragments", fragments},
                      {"overlap_steps", overlap}}};
  return doc;
}

TEST_CASE("diloco on the layer DAG: two layers against closed forms", "[models][layers]") {
  // Vanilla: R2 [0.08, 0.08 + W/2], R1 after it: stall W/2 while W <= 0.04
  // (the backward hides R2), W - 0.02 beyond. Streaming (2 fragments, one
  // layer each, W/2 apiece): layer 1's exchange stalls W/2, layer 2's
  // max(0, W/2 - 0.04). Utilization = 1 / (1 + stalls per outer step).
  // W = 0.1 (160 Gbps): both exposed, streaming ahead.
  CHECK(goodput(two_layer_diloco("160Gbps", 1, 0)) == Approx(1 / 1.08).epsilon(1e-3));
  CHECK(goodput(two_layer_diloco("160Gbps", 2, 0)) == Approx(1 / 1.06).epsilon(1e-3));
  // W = 0.05 (320 Gbps): layer 2's exchange hidden in streaming only.
  CHECK(goodput(two_layer_diloco("320Gbps", 1, 0)) == Approx(1 / 1.03).epsilon(1e-3));
  CHECK(goodput(two_layer_diloco("320Gbps", 2, 0)) == Approx(1 / 1.025).epsilon(1e-3));
  // W = 0.02 (800 Gbps): all but layer 1's reduce hidden in both, the same stall.
  CHECK(goodput(two_layer_diloco("800Gbps", 1, 0)) == Approx(1 / 1.01).epsilon(1e-3));
  CHECK(goodput(two_layer_diloco("800Gbps", 2, 0)) == Approx(1 / 1.01).epsilon(1e-3));
  // One step of overlap (gates at 0.2 and 0.22), W = 0.4 (40 Gbps): layer 1
  // stalls 0.2 - 0.1, layer 2 0.2 + 0.08 - 0.22; at 160 Gbps nothing.
  CHECK(goodput(two_layer_diloco("40Gbps", 2, 1)) == Approx(1 / 1.16).epsilon(1e-3));
  CHECK(goodput(two_layer_diloco("160Gbps", 2, 1)) == Approx(1.0).epsilon(1e-3));
}

TEST_CASE("streaming without overlap beats vanilla DiLoCo once the exchange backs up",
          "[models][layers]") {
  // 8 layers, H = 16: at bandwidths where the whole model's exchange outlasts
  // the backward, fragments smaller than the model start before the last
  // backward and hold only their own layers' forward.
  for (const char* bw : {"10Gbps", "40Gbps", "160Gbps"}) {
    nlohmann::json doc = two_layer_diloco(bw, 1, 0);
    doc["job"]["layers"] = 8;
    doc["policies"][0]["inner_steps"] = 16;
    const double vanilla = goodput(doc);
    for (int p : {2, 4, 8}) {
      doc["policies"][0]["fragments"] = p;
      CHECK(goodput(doc) > vanilla + 1e-3);
      doc["policies"][0]["fragment_layers"] = "strided";
      CHECK(goodput(doc) > vanilla + 1e-3);
      doc["policies"][0].erase("fragment_layers");
    }
  }
}

TEST_CASE("streaming diloco: more bandwidth and more overlap never hurt", "[models][layers]") {
  for (int bits : {16, 4}) {
    double previous = 0;
    for (const char* bw : {"300Mbps", "1Gbps", "3Gbps", "10Gbps", "30Gbps", "100Gbps"}) {
      const double g = goodput(streaming(bw, 1, bits));
      CHECK(g >= previous - 1e-9);
      previous = g;
    }
    double no_overlap = goodput(streaming("3Gbps", 0, bits));
    CHECK(goodput(streaming("3Gbps", 1, bits)) >= no_overlap - 1e-9);
  }
}

// The syncer's summary line of a run's event log.
nlohmann::json syncer_summary(const nlohmann::json& doc) {
  const auto dir = std::filesystem::temp_directory_path() / "goodsim_test_layers_log";
  std::filesystem::create_directories(dir);
  const auto path = dir / "events.jsonl";
  {
    output::EventLog log(path);
    run_policy(testing::prepare_doc(doc), 0, 1, &log);
    log.commit();
  }
  std::ifstream in(path);
  nlohmann::json summary;
  for (std::string line; std::getline(in, line);) {
    const auto j = nlohmann::json::parse(line);
    if (j["event"] == "syncer_summary") summary = j;
  }
  std::filesystem::remove_all(dir);
  return summary;
}

TEST_CASE("decoupled_diloco: quantized fragments arrive less late", "[models][layers]") {
  // 8 layers in 4 strided fragments of 5e8 bytes (16 bits) over 1 Gbps: the
  // syncer's pull and broadcast take seconds, far beyond tau = 2 steps of 0.1 s.
  nlohmann::json doc = two_sites("1Gbps", 8);
  doc["horizon"] = "10m";
  doc["policies"] = {{{"name", "d"}, {"type", "decoupled_diloco"}, {"learners", 2},
                      {"inner_steps", 8}, {"fragments", 4}, {"fragment_layers", "strided"}}};
  const nlohmann::json full = syncer_summary(doc);
  doc["policies"][0]["transfer_bits"] = 4;
  const nlohmann::json fp4 = syncer_summary(doc);
  REQUIRE(full.contains("max_lateness_s"));
  CHECK(full["max_lateness_s"].get<double>() > 1.0);
  CHECK(fp4["max_lateness_s"].get<double>() < full["max_lateness_s"].get<double>());
}

TEST_CASE("fragments may not outnumber job.layers", "[models][layers]") {
  nlohmann::json doc = streaming("10Gbps", 1, 16);
  doc["policies"][0]["fragments"] = 9;
  CHECK_THROWS_WITH(testing::prepare_doc(doc), Catch::Contains("job.layers (8)"));
  doc["policies"][0]["transfer_bits"] = 5;
  doc["policies"][0]["fragments"] = 2;
  CHECK_THROWS_WITH(testing::prepare_doc(doc), Catch::Contains("16, 8 or 4"));
}

}  // namespace
}  // namespace goodsim::models::policy
