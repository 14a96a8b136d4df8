// Running one failure injector alone over a small cluster, and recording what
// it does to the cluster, for the failure-model tests.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "models/failure/failure_injector.h"
#include "models/run_context.h"
#include "sim/cluster/cluster_state.h"
#include "sim/cluster/layout.h"
#include "sim/cluster/network.h"
#include "sim/core/simulation.h"

namespace goodsim::testing {

// One outage beginning or ending, as observed.
struct Change {
  double t;
  cluster::Domain domain;
  uint32_t id;
  bool failed;
  cluster::CauseId cause;
};

// Records chip-level failures per chip (count, up-time, complete and censored
// lifetimes) and, optionally, every change.
class Recorder : public cluster::ClusterObserver {
 public:
  explicit Recorder(uint64_t chips, bool keep_changes = false)
      : failures(chips, 0), last_up(chips, 0.0), down_since(chips, -1.0), keep_(keep_changes) {}

  void on_cluster_change(const cluster::ClusterChange& c) override {
    const double t = c.time.seconds_f();
    if (keep_) changes.push_back({t, c.domain, c.id, c.failed, c.cause});
    if (c.failed) {
      ++total;
      if (per_cause.size() <= c.cause) per_cause.resize(c.cause + 1, 0);
      ++per_cause[c.cause];
    }
    if (c.domain != cluster::Domain::kChip) return;
    if (c.failed) {
      ++failures[c.id];
      lifetimes.push_back(t - last_up[c.id]);
      lifetime_starts.push_back(last_up[c.id]);
      down_since[c.id] = t;
    } else {
      down_s += t - down_since[c.id];
      down_since[c.id] = -1;
      last_up[c.id] = t;
    }
  }

  // Closes the books at the horizon: down time of chips still down, and the
  // censored lifetimes of chips that are up.
  void finish(double horizon) {
    for (size_t c = 0; c < failures.size(); ++c) {
      if (down_since[c] >= 0) {
        down_s += horizon - down_since[c];
      } else {
        censored.push_back(horizon - last_up[c]);
      }
    }
  }

  std::vector<uint64_t> failures;  // per chip (chip-domain outages)
  std::vector<double> last_up;     // time the chip last came back (0 at start)
  std::vector<double> down_since;  // -1 while up
  std::vector<double> lifetimes;   // complete: from (re)start to failure
  std::vector<double> lifetime_starts;  // when each of `lifetimes` began
  std::vector<double> censored;    // after finish(): running at the horizon
  std::vector<uint64_t> per_cause;
  std::vector<Change> changes;
  uint64_t total = 0;
  double down_s = 0;  // chip-seconds down from chip-domain outages

 private:
  bool keep_;
};

// A cluster, a simulation and a RunContext for injectors to run in.
class InjectorHarness {
 public:
  InjectorHarness(uint32_t chips_per_host, uint32_t hosts_per_slice,
          std::vector<cluster::SiteShape> sites, uint64_t seed, bool keep_changes = false)
      : layout(chips_per_host, hosts_per_slice, std::move(sites)),
        sim(seed),
        state(layout),
        recorder(layout.chips(), keep_changes),
        ctx{sim, state, network, job, nullptr, policy_name} {
    state.add_observer(&recorder);
  }
  // A flat cluster of `chips` chips, one per host and per slice.
  InjectorHarness(uint32_t chips, uint64_t seed, bool keep_changes = false)
      : InjectorHarness(1, 1, {{"a", chips}}, seed, keep_changes) {}

  // Starts `inj` and runs to `horizon_s`; closes the recorder's books.
  void run(models::failure::FailureInjector& inj, double horizon_s) {
    inj.start(ctx);
    sim.run_until(core::SimTime::zero() + core::Duration::from_seconds(horizon_s));
    recorder.finish(horizon_s);
  }

  cluster::Layout layout;
  cluster::Network network;
  scenario::JobSpec job{1, 1, core::Duration::seconds(1), std::nullopt};
  std::string policy_name = "test";
  core::Simulation sim;
  cluster::ClusterState state;
  Recorder recorder;
  models::RunContext ctx;
};

// Two-sample chi-square statistic of two histograms over the same bins
// (equal sample sizes): sum (a - b)^2 / (a + b) over non-empty bins.
inline double two_sample_chi2(const std::vector<double>& a, const std::vector<double>& b) {
  double chi2 = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] + b[i] > 0) chi2 += (a[i] - b[i]) * (a[i] - b[i]) / (a[i] + b[i]);
  }
  return chi2;
}

// Histogram of counts in bins 0..bins-2 and "bins-1 or more".
inline std::vector<double> count_histogram(const std::vector<uint64_t>& counts, size_t bins) {
  std::vector<double> h(bins, 0.0);
  for (uint64_t n : counts) h[std::min<uint64_t>(n, bins - 1)] += 1;
  return h;
}

// Mean and the standard error of the sum of independent per-unit counts,
// estimated from their sample variance.
struct SumStats {
  double sum = 0;
  double se = 0;
};
inline SumStats sum_stats(const std::vector<uint64_t>& counts) {
  double s = 0, s2 = 0;
  for (uint64_t n : counts) {
    s += static_cast<double>(n);
    s2 += static_cast<double>(n) * static_cast<double>(n);
  }
  const double k = static_cast<double>(counts.size());
  const double var = (s2 - s * s / k) / (k - 1);
  return {s, std::sqrt(var * k)};
}

}  // namespace goodsim::testing
