// Failure injection at scale: 1.2M chips, one failure per chip-year (mtbf 1y),
// 30 simulated days, each injector alone (no policy) in its own Simulation.
// Targets (issue 3): exponential within 1 s, Weibull within 5 s of wall time
// for start() plus the run; cluster setup is reported separately.
#include <fmt/format.h>

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "bench/bench.h"
#include "models/failure/cause_mix.h"
#include "models/failure/exponential_failures.h"
#include "models/failure/weibull_failures.h"
#include "models/run_context.h"
#include "sim/cluster/cluster_state.h"
#include "sim/core/distributions.h"

namespace goodsim::bench {
namespace {

using Clock = std::chrono::steady_clock;
using models::failure::FailureInjector;

constexpr uint32_t kChipsPerHost = 8;
constexpr uint32_t kHostsPerSlice = 50;
constexpr uint32_t kSlices = 3000;  // 1.2M chips
const core::Duration kHorizon = core::Duration::days(30);

core::Distribution repair() { return core::Distribution::lognormal_mean_sigma(3600, 1.0); }

std::unique_ptr<FailureInjector> exponential() {
  models::failure::ExponentialFailuresConfig c;
  c.mtbf = core::Duration::days(365);
  c.repair = models::failure::RepairPipeline::single(repair());
  c.causes = *models::failure::CauseMix::preset("llama3");
  return std::make_unique<models::failure::ExponentialFailures>(c, "failures.exp");
}

std::unique_ptr<FailureInjector> weibull(bool stationary) {
  models::failure::WeibullFailuresConfig c;
  c.shape = 0.7;
  c.scale_s = 365.0 * 86400 / std::tgamma(1 + 1 / c.shape);
  c.stationary_start = stationary;
  c.repair_time = repair();
  c.causes = *models::failure::CauseMix::preset("llama3");
  return std::make_unique<models::failure::WeibullFailures>(c, "failures.weibull");
}

// Runs one injector; returns false when it missed `target_s`.
bool run_one(const std::string& label, const std::function<std::unique_ptr<FailureInjector>()>& make,
             double target_s) {
  const auto t0 = Clock::now();
  const cluster::Layout layout(kChipsPerHost, kHostsPerSlice, {{"dc", kSlices}});
  cluster::Network network;
  const scenario::JobSpec job{1, 1, core::Duration::seconds(1), std::nullopt};
  const std::string policy = "bench";
  core::Simulation sim(1);
  cluster::ClusterState state(layout);
  models::RunContext ctx{sim, state, network, job, nullptr, policy};
  std::unique_ptr<FailureInjector> inj = make();
  const auto t1 = Clock::now();
  inj->start(ctx);
  sim.run_until(core::SimTime::zero() + kHorizon);
  const auto t2 = Clock::now();
  const double setup = std::chrono::duration<double>(t1 - t0).count();
  const double wall = std::chrono::duration<double>(t2 - t1).count();
  const bool ok = wall <= target_s;
  fmt::print("{:<28} {:>8.3f} {:>8.3f} {:>8} {:>10} {:>9.2e}{}\n", label, setup, wall,
             inj->failures(), sim.events_executed(),
             static_cast<double>(sim.events_executed()) / wall,
             ok ? "" : fmt::format("  ABOVE TARGET {}s", target_s));
  return ok;
}

}  // namespace

int inject() {
  fmt::print("failure injection: {} chips, mtbf 1y, 30 days, lognormal repair (mean 1h)\n",
             uint64_t{kChipsPerHost} * kHostsPerSlice * kSlices);
  fmt::print("{:<28} {:>8} {:>8} {:>8} {:>10} {:>9}\n", "injector", "setup s", "wall s",
             "failures", "events", "events/s");
  bool ok = run_one("exponential_failures", exponential, 1.0);
  ok &= run_one("weibull_failures (0.7, stat)", [] { return weibull(true); }, 5.0);
  ok &= run_one("weibull_failures (0.7, new)", [] { return weibull(false); }, 5.0);
  return ok ? 0 : 1;
}

}  // namespace goodsim::bench
