// LemonInjector<Config>: an OutageInjector (outage_injector.h) whose chips
// may be lemons: a `lemon_fraction` of the chips that fail
// `lemon_multiplier` times as often (lemon_set.h). The base of
// exponential_failures and weibull_failures.
//
// A derived injector calls choose_lemons() right after bind() in its start(),
// so the lemon set is the first draw of its stream.
#pragma once

#include <string>
#include <utility>

#include "models/failure/lemon_set.h"
#include "models/failure/outage_injector.h"

namespace goodsim::models::failure {

template <class Config>
class LemonInjector : public OutageInjector<Config> {
 public:
  LemonInjector(Config config, std::string stream)
      : OutageInjector<Config>(std::move(config), std::move(stream)) {}

  // The lemons. Valid after start().
  const LemonSet& lemons() const { return lemons_; }

 protected:
  // Draws the lemon set (only when lemon_fraction > 0). REQUIRES: bind() was called.
  void choose_lemons() {
    const double fraction = this->config_.lemon_fraction;
    if (fraction > 0) {
      lemons_ = LemonSet::choose(*this->rng_, this->ctx_->layout().chips(), fraction);
    }
  }

  LemonSet lemons_;
};

}  // namespace goodsim::models::failure
