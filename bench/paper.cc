// The Decoupled DiLoCo paper comparison at full scale: scenarios/paper-1.2m.json
// (1.2M chips, one failure per chip-year, 7 simulated days, 1 s steps,
// P = H = 24) with all six of its policies, one after the other on one core,
// as `goodsim run` does. Target (issue 4): <= 30 s of wall time in total and
// < 2 GB peak memory. paper_table1(): scenarios/paper-table1.json at 2.4M
// chips (its largest column), target < 10 s.
#include <fmt/format.h>
#include <sys/resource.h>

#include <chrono>
#include <string>

#include "bench/bench.h"
#include "models/registry.h"
#include "models/runner.h"
#include "sim/scenario/json_file.h"

namespace goodsim::bench {

namespace {

// Runs every policy of scenarios/`file` (with cluster.chips = `chips` when
// non-zero); 0 when the total wall time is within `target_s`.
int run_paper(const std::string& file, double chips, double target_s) {
  using Clock = std::chrono::steady_clock;
  const std::string path = std::string(GOODSIM_SOURCE_DIR) + "/scenarios/" + file;
  const auto t0 = Clock::now();
  const models::Registry registry = models::builtin_registry();
  nlohmann::json doc = scenario::load_json_file(path);
  if (chips > 0) doc["cluster"]["chips"] = chips;
  const models::PreparedScenario prepared = models::prepare(doc, path, registry);
  const double setup = std::chrono::duration<double>(Clock::now() - t0).count();
  fmt::print("paper: {} ({} chips, horizon {:.0f} s), setup {:.3f} s\n", path,
             prepared.layout.chips(), prepared.scenario.horizon.seconds_f(), setup);
  fmt::print("  {:<16} {:<22} {:>8} {:>12} {:>12} {:>8} {:>7}\n", "policy", "type", "wall_s",
             "events", "events/s", "goodput", "uptime");
  double total = setup;
  uint64_t events = 0;
  for (size_t i = 0; i < prepared.policies.size(); ++i) {
    const auto start = Clock::now();
    const output::PolicyResult r =
        models::run_policy(prepared, i, prepared.scenario.seed, nullptr);
    const double wall = std::chrono::duration<double>(Clock::now() - start).count();
    total += wall;
    events += r.events;
    fmt::print("  {:<16} {:<22} {:>8.3f} {:>12} {:>12.0f} {:>8.4f} {:>7.4f}\n", r.name, r.type,
               wall, r.events, static_cast<double>(r.events) / wall, r.goodput, r.uptime);
  }
  struct rusage ru {};
  getrusage(RUSAGE_SELF, &ru);
  const double peak_mib = static_cast<double>(ru.ru_maxrss) / 1024.0;
  fmt::print("  total {:.2f} s (target <= {:.0f} s), {} events, {:.0f} events/s, peak RSS "
             "{:.1f} MiB (target < 2048 MiB)\n",
             total, target_s, events, static_cast<double>(events) / total, peak_mib);
  return total <= target_s && peak_mib < 2048.0 ? 0 : 1;
}

}  // namespace

int paper() { return run_paper("paper-1.2m.json", 0, 30.0); }

int paper_table1() { return run_paper("paper-table1.json", 2.4e6, 10.0); }

}  // namespace goodsim::bench
