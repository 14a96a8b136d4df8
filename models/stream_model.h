// StreamModel: the part every failure injector and straggler model shares —
// the name of its own RNG stream, and, once its run starts, that run's
// context and the stream's generator.
//
// A model derives from it through ConfiguredModel (configured_model.h), which
// passes the stream name (unique within a scenario: "<list key>.<entry
// name>"), and calls bind() first in start(). Its handlers are named "<stream>.<suffix>", so two models
// never share a handler name. The RunContext outlives the run; a started model
// is not copied (its handlers capture `this`).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "models/run_context.h"
#include "sim/core/rng.h"
#include "sim/core/simulation.h"

namespace goodsim::models {

template <class Interface>
class StreamModel : public Interface {
 public:
  const std::string& stream() const { return stream_; }

 protected:
  explicit StreamModel(std::string stream) : stream_(std::move(stream)) {}

  // Binds the run: ctx_ and rng_, the generator of the stream (from the run's
  // seed and the stream name only). Returns rng_. REQUIRES: called once, first
  // thing in start().
  core::Rng& bind(RunContext& ctx) {
    ctx_ = &ctx;
    rng_ = ctx.sim.rng(stream_);
    return *rng_;
  }
  // Registers `fn` in the bound run as the handler "<stream>.<suffix>".
  // REQUIRES: bind() was called.
  core::HandlerId add_handler(std::string_view suffix, core::Simulation::Handler fn) {
    return ctx_->sim.add_handler(stream_ + "." + std::string(suffix), std::move(fn));
  }

  std::string stream_;
  RunContext* ctx_ = nullptr;
  std::optional<core::Rng> rng_;  // set by bind()
};

}  // namespace goodsim::models
