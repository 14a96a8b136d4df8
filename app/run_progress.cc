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

std::string RunProgressLine::text_all(double done, size_t policies,
                                      const std::vector<std::pair<std::string, double>>& running,
                                      double events_per_s) {
  std::string names;
  for (const auto& [policy, share] : running) {
    names += fmt::format("{}{} {:.0f}%", names.empty() ? "" : ", ", policy, 100 * share);
  }
  return fmt::format("simulated {:.1f}% of {} policies{}, {:.3g} events/s", 100 * done, policies,
                     names.empty() ? "" : " (" + names + ")", events_per_s);
}

void RunProgressLine::update(const std::string& policy, double sim_s, double horizon_s,
                             uint64_t events) {
  const std::lock_guard lock(mutex_);
  if (policies_ > 1) return update_all(policy, horizon_s > 0 ? sim_s / horizon_s : 1.0, events);
  const Clock::time_point now = Clock::now();
  if (policy != policy_) {
    policy_ = policy;
    policy_start_ = now;
  }
  const auto elapsed = now - policy_start_;
  if (elapsed < kFirstAfter || now - last_ < kEvery) return;
  const double rate = static_cast<double>(events) / std::chrono::duration<double>(elapsed).count();
  draw(text(policy, sim_s, horizon_s, rate), now);
}

void RunProgressLine::update_all(const std::string& policy, double done, uint64_t events) {
  shares_[policy] = {done, events};
  const Clock::time_point now = Clock::now();
  const auto elapsed = now - start_;
  if (elapsed < kFirstAfter || now - last_ < kEvery) return;
  double total = 0;
  uint64_t all_events = 0;
  std::vector<std::pair<std::string, double>> running;
  for (const auto& [name, share] : shares_) {
    total += share.done;
    all_events += share.events;
    if (share.done < 1) running.emplace_back(name, share.done);
  }
  const double rate =
      static_cast<double>(all_events) / std::chrono::duration<double>(elapsed).count();
  draw(text_all(total / static_cast<double>(policies_), policies_, running, rate), now);
}

void RunProgressLine::draw(const std::string& line, Clock::time_point now) {
  last_ = now;
  err_ << "\r\033[K" << line << std::flush;
  drawn_ = true;
}

void RunProgressLine::clear() {
  const std::lock_guard lock(mutex_);
  if (!drawn_) return;
  err_ << "\r\033[K" << std::flush;
  drawn_ = false;
}

}  // namespace goodsim::app
