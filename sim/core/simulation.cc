#include "sim/core/simulation.h"

#include <fmt/format.h>

#include <cstdlib>
#include <utility>

namespace goodsim::core {
namespace {
constexpr uint64_t kFingerprintBasis = 0xcbf29ce484222325ULL;

inline uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  h *= 0xbf58476d1ce4e5b9ULL;
  return h ^ (h >> 31);
}
}  // namespace

Simulation::Simulation(uint64_t seed) : seed_(seed), fingerprint_(kFingerprintBasis) {}

HandlerId Simulation::add_handler(std::string name, Handler fn) {
  GOODSIM_CHECK(fn != nullptr);
  handlers_.push_back(std::move(fn));
  handler_names_.push_back(std::move(name));
  return static_cast<HandlerId>(handlers_.size() - 1);
}

void Simulation::scheduled_in_past(SimTime time) const {
  GOODSIM_CHECK_MSG(time >= now_, fmt::format("event scheduled in the past: t={}ns < now={}ns",
                                              time.ns(), now_.ns()));
  std::abort();  // unreachable: the check above fails
}

void Simulation::run_until(SimTime end) {
  GOODSIM_CHECK(end >= now_);
  CheckContextScope scope(this);
  until_ = end;
  Event e;
  while (!stop_requested_) {
    if (executed_ >= event_limit_) {
      // At the limit, the run stops only if an event is still due by `end`.
      if (!queue_.empty() && queue_.next_time() <= end) limit_reached_ = stop_requested_ = true;
      break;
    }
    if (!queue_.pop_until(end, e)) break;
    now_ = e.time;
    current_ = &e;
    fold(e);
    ++executed_;
    handlers_[e.handler](e);
    current_ = nullptr;
  }
  if (!stop_requested_) now_ = end;
}

void Simulation::fold(const Event& e) {
  uint64_t h = fingerprint_;
  h = mix(h, static_cast<uint64_t>(e.time.ns()));
  h = mix(h, (uint64_t{e.band} << 32) | e.handler);
  h = mix(h, e.a);
  fingerprint_ = mix(h, e.b);
}

std::string Simulation::describe() const {
  if (current_ == nullptr) return fmt::format("at sim time {}ns (between events)", now_.ns());
  return fmt::format("executing event seq={} handler={} band={} a={} b={} at sim time {:.9f}s",
                     current_->seq, handler_names_[current_->handler], current_->band,
                     current_->a, current_->b, now_.seconds_f());
}

}  // namespace goodsim::core
