// OutageInjector<Config>: the base of the stochastic failure injectors
// (exponential_failures, weibull_failures, domain_failures,
// planned_maintenance): a ConfiguredModel (configured_model.h) whose outages
// are begun, repaired and counted by one OutageSource (outage_source.h), so
// failures() is the count of outages it began.
//
// Config states the outages' repair law as repair_law() (a core::Distribution
// in seconds, or a RepairPipeline) and their cause mix as `causes`; the
// source is built from them. A derived injector calls bind() and then
// start_outages() in its start() (the order its handlers are registered in is
// part of the run's fingerprint, so it keeps the order it had), and begins
// outages with outages_.begin().
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "models/configured_model.h"
#include "models/failure/failure_injector.h"
#include "models/failure/outage_source.h"

namespace goodsim::models::failure {

template <class Config>
class OutageInjector : public ConfiguredModel<FailureInjector, Config> {
 public:
  OutageInjector(Config config, std::string stream)
      : ConfiguredModel<FailureInjector, Config>(std::move(config), std::move(stream)),
        outages_(this->config_.repair_law(), this->config_.causes) {}

  uint64_t failures() const override { return outages_.count(); }

 protected:
  // Starts the outage source on the bound run and stream; `on_repaired`
  // learns of each unit that comes back. REQUIRES: bind() was called.
  void start_outages(OutageSource::RepairedFn on_repaired = {}) {
    outages_.start(*this->ctx_, *this->rng_, this->stream_, std::move(on_repaired));
  }

  OutageSource outages_;
};

}  // namespace goodsim::models::failure
