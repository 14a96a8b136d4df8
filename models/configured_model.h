// ConfiguredModel<Interface, Config>: a StreamModel (stream_model.h) built
// from its validated Config and its stream name, as the registry makes every
// failure injector and straggler model: Model(config, stream).
//
// It states once, for all of them:
//  - the constructor, which keeps the parameters in config_ (a derived model
//    inherits it: `using ConfiguredModel::ConfiguredModel;`);
//  - config(), the parameters the model runs with;
//  - expected_use(), which is Config::expected_use(layout, horizon): the
//    estimate depends on the parameters and the cluster only, never on run
//    state, so it is the config's and is valid before start().
// A derived model states what is its own: start(), its accessors and state.
#pragma once

#include <concepts>
#include <string>
#include <utility>

#include "models/resource_use.h"
#include "models/stream_model.h"
#include "sim/cluster/layout.h"
#include "sim/core/time.h"

namespace goodsim::models {

template <class Config>
concept EstimatedConfig = requires(const Config& c, const cluster::Layout& l, core::Duration h) {
  { c.expected_use(l, h) } -> std::same_as<ResourceUse>;
};

template <class Interface, EstimatedConfig Config>
class ConfiguredModel : public StreamModel<Interface> {
 public:
  ConfiguredModel(Config config, std::string stream)
      : StreamModel<Interface>(std::move(stream)), config_(std::move(config)) {}

  const Config& config() const { return config_; }
  ResourceUse expected_use(const cluster::Layout& layout, core::Duration horizon) const override {
    return config_.expected_use(layout, horizon);
  }

 protected:
  Config config_;
};

}  // namespace goodsim::models
