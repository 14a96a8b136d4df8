// The discrete-event engine: one Simulation owns the clock, the event queue,
// the handler table, the seed of every named RNG stream and the fingerprint.
//
// There are no globals: many Simulations can run in one process, one per
// thread. A run is fully determined by (binary, scenario, seed).
//
// Handlers are registered once (at setup) and addressed by index; an event is a
// POD carrying the handler index and two payload words, so scheduling never
// allocates per event.
//
// Bands order events that share a timestamp (lower first). The conventions:
// state changes (failures, repairs) run before the reactions of policies, and
// observations (samplers) run last, so a sample at time t sees everything that
// happened at t.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/check.h"
#include "sim/core/event_queue.h"
#include "sim/core/rng.h"
#include "sim/core/time.h"

namespace goodsim::core {

inline constexpr Band kBandFailure = 32;   // a component goes down
inline constexpr Band kBandRepair = 48;    // a component comes back
inline constexpr Band kBandPolicy = 128;   // policy timers and reactions
inline constexpr Band kBandObserve = 224;  // samplers and probes

class Simulation : private CheckContext {
 public:
  using Handler = std::function<void(const Event&)>;

  explicit Simulation(uint64_t seed);
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  // Registers a handler; the name appears in check-failure messages.
  HandlerId add_handler(std::string name, Handler fn);

  // REQUIRES: time >= now(); handler registered.
  // Inline: the hot path of every handler.
  EventId schedule_at(SimTime time, Band band, HandlerId handler, uint64_t a = 0,
                      uint64_t b = 0) {
    if (time < now_) scheduled_in_past(time);
    GOODSIM_CHECK(handler < handlers_.size());
    return queue_.push(time, band, handler, a, b);
  }
  // REQUIRES: delay >= 0.
  EventId schedule_in(Duration delay, Band band, HandlerId handler, uint64_t a = 0,
                      uint64_t b = 0) {
    GOODSIM_CHECK_MSG(delay >= Duration::zero(), "negative delay");
    return schedule_at(now_ + delay, band, handler, a, b);
  }
  // Returns false if the event already ran or was cancelled.
  bool cancel(EventId id) { return queue_.cancel(id); }

  // Executes, in (time, band, seq) order, every event with time <= end, then
  // sets now() to end. Stops early (leaving now() at the last event) after
  // request_stop(). REQUIRES: end >= now().
  void run_until(SimTime end);
  void request_stop() { stop_requested_ = true; }
  bool stopped() const { return stop_requested_; }
  // A guard against runs that would never end: once `limit` events have executed,
  // run_until stops as after request_stop() and event_limit_reached() is true.
  // Default: no limit.
  void set_event_limit(uint64_t limit) { event_limit_ = limit; }
  bool event_limit_reached() const { return limit_reached_; }

  SimTime now() const { return now_; }
  // The end of the run_until() call under way (or of the last one).
  SimTime until() const { return until_; }
  uint64_t seed() const { return seed_; }
  // The stream named `name` for this run's seed. Independent of creation order.
  Rng rng(std::string_view name) const { return Rng::for_stream(seed_, name); }

  // A 64-bit digest of every executed event (time, band, handler, payload).
  uint64_t fingerprint() const { return fingerprint_; }
  uint64_t events_executed() const { return executed_; }
  size_t pending() const { return queue_.size(); }
  // When the next event of a handler other than `h` runs (SimTime::max() if
  // none is pending): lets a handler that skips ahead in closed form know
  // how far nothing else happens. O(pending events).
  SimTime next_time_excluding(HandlerId h) const { return queue_.next_time_excluding(h); }

 private:
  [[noreturn]] void scheduled_in_past(SimTime time) const;
  void fold(const Event& e);
  std::string describe() const override;

  EventQueue queue_;
  std::vector<Handler> handlers_;
  std::vector<std::string> handler_names_;
  SimTime now_;
  SimTime until_ = SimTime::max();
  uint64_t seed_;
  uint64_t fingerprint_;
  uint64_t executed_ = 0;
  uint64_t event_limit_ = UINT64_MAX;
  bool stop_requested_ = false;
  bool limit_reached_ = false;
  const Event* current_ = nullptr;
};

}  // namespace goodsim::core
