#include "app/run_progress.h"

#include <fmt/format.h>
#include <unistd.h>

#include <ostream>

#include "app/table.h"

namespace goodsim::app {
namespace {

constexpr std::chrono::milliseconds kFirstAfter{1000};  // short runs never show a line
constexpr std::chrono::milliseconds kEvery{500};

}  // namespace

bool RunProgressLine::stderr_is_terminal() { return ::isatty(STDERR_FILENO) != 0; }

std::string RunProgressLine::text(const std::string& policy, double sim_s, double horizon_s,
                                  double events_per_s) {
  const double share = horizon_s > 0 ? sim_s / horizon_s : 1.0;
  return fmt::format("{}: simulated {} of {} ({:.1f}%), {:.3g} events/s", policy,
                     short_duration(sim_s), short_duration(horizon_s), 100 * share, events_per_s);
}

models::RunProgress RunProgressLine::callback() {
  if (!enabled_) return nullptr;
  return [this](const std::string& policy, double sim_s, double horizon_s, uint64_t events) {
    update(policy, sim_s, horizon_s, events);
  };
}

void RunProgressLine::update(const std::string& policy, double sim_s, double horizon_s,
                             uint64_t events) {
  const Clock::time_point now = Clock::now();
  if (policy != policy_) {
    policy_ = policy;
    policy_start_ = now;
  }
  const auto elapsed = now - policy_start_;
  if (elapsed < kFirstAfter || now - last_ < kEvery) return;
  last_ = now;
  const double rate = static_cast<double>(events) / std::chrono::duration<double>(elapsed).count();
  err_ << "\r\033[K" << text(policy, sim_s, horizon_s, rate) << std::flush;
  drawn_ = true;
}

void RunProgressLine::clear() {
  if (!drawn_) return;
  err_ << "\r\033[K" << std::flush;
  drawn_ = false;
}

}  // namespace goodsim::app
