// OutageInjector: the base of the stochastic failure injectors
// (exponential_failures, weibull_failures, domain_failures,
// planned_maintenance): a StreamModel whose outages are begun, repaired and
// counted by one OutageSource (outage_source.h), so failures() is the count of
// outages it began.
//
// A derived injector passes its repair-time law and cause mix to the
// constructor, calls bind() and then start_outages() in its start() (the
// order its handlers are registered in is part of the run's fingerprint, so
// it keeps the order it had), and begins outages with outages_.begin().
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "models/failure/cause_mix.h"
#include "models/failure/failure_injector.h"
#include "models/failure/outage_source.h"
#include "models/stream_model.h"

namespace goodsim::models::failure {

class OutageInjector : public StreamModel<FailureInjector> {
 public:
  uint64_t failures() const override { return outages_.count(); }

 protected:
  // `repair`: a core::Distribution (seconds) or a RepairPipeline.
  template <class Repair>
  OutageInjector(std::string stream, Repair repair, CauseMix causes)
      : StreamModel(std::move(stream)), outages_(std::move(repair), std::move(causes)) {}

  // Starts the outage source on the bound run and stream; `on_repaired`
  // learns of each unit that comes back. REQUIRES: bind() was called.
  void start_outages(OutageSource::RepairedFn on_repaired = {}) {
    outages_.start(*ctx_, *rng_, stream_, std::move(on_repaired));
  }

  OutageSource outages_;
};

}  // namespace goodsim::models::failure
