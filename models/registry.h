// The catalogue of built-in models, filled explicitly in registry.cc (one line
// per model; no static self-registration, no globals).
//
// A model is registered with its JSON "type" (which equals its file stem), a
// one-line help, and its config parser. Parsing a scenario entry yields a
// "maker": the validated config captured in a closure that instantiates a
// fresh model for each policy run. The same parser run on a describe-mode
// ObjectReader yields the parameter table that `goodsim list-models` prints.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "models/failure/failure_injector.h"
#include "models/parse_context.h"
#include "models/policy/policy.h"
#include "models/straggler/straggler_model.h"
#include "sim/scenario/reader.h"

namespace goodsim::models {

enum class ModelKind { kFailure, kStraggler, kPolicy };
const char* kind_name(ModelKind k);
// The scenario's list key for models of kind k ("failures", ...).
const char* scenario_key(ModelKind k);

using FailureMaker =
    std::function<std::unique_ptr<failure::FailureInjector>(const std::string& stream)>;
using StragglerMaker =
    std::function<std::unique_ptr<straggler::StragglerModel>(const std::string& stream)>;
using PolicyMaker = std::function<std::unique_ptr<policy::Policy>()>;

struct ModelInfo {
  ModelKind kind;
  std::string type;
  std::string help;
  // Configs may take a ParseContext (see parse_context.h).
  std::function<FailureMaker(scenario::ObjectReader&, const ParseContext&)> parse_failure;
  std::function<StragglerMaker(scenario::ObjectReader&, const ParseContext&)> parse_straggler;
  std::function<PolicyMaker(scenario::ObjectReader&, const ParseContext&)> parse_policy;
};

// Config::from_json(r, ctx) when the config declares it, else from_json(r).
template <class Config>
Config parse_config(scenario::ObjectReader& r, const ParseContext& ctx) {
  if constexpr (requires { Config::from_json(r, ctx); }) {
    return Config::from_json(r, ctx);
  } else {
    return Config::from_json(r);
  }
}

class Registry {
 public:
  template <class Model, class Config>
  void add_failure(std::string type, std::string help) {
    ModelInfo m{ModelKind::kFailure, std::move(type), std::move(help), {}, {}, {}};
    m.parse_failure = [](scenario::ObjectReader& r, const ParseContext& ctx) -> FailureMaker {
      const Config c = parse_config<Config>(r, ctx);
      return [c](const std::string& stream) { return std::make_unique<Model>(c, stream); };
    };
    models_.push_back(std::move(m));
  }
  template <class Model, class Config>
  void add_straggler(std::string type, std::string help) {
    ModelInfo m{ModelKind::kStraggler, std::move(type), std::move(help), {}, {}, {}};
    m.parse_straggler = [](scenario::ObjectReader& r, const ParseContext& ctx) -> StragglerMaker {
      const Config c = parse_config<Config>(r, ctx);
      return [c](const std::string& stream) { return std::make_unique<Model>(c, stream); };
    };
    models_.push_back(std::move(m));
  }
  template <class Model, class Config>
  void add_policy(std::string type, std::string help) {
    ModelInfo m{ModelKind::kPolicy, std::move(type), std::move(help), {}, {}, {}};
    m.parse_policy = [](scenario::ObjectReader& r, const ParseContext& ctx) -> PolicyMaker {
      const Config c = parse_config<Config>(r, ctx);
      return [c] { return std::make_unique<Model>(c); };
    };
    models_.push_back(std::move(m));
  }

  // The model of `kind` named `type`, or null.
  const ModelInfo* find(ModelKind kind, const std::string& type) const;
  std::vector<std::string> types(ModelKind kind) const;
  const std::vector<ModelInfo>& models() const { return models_; }

 private:
  std::vector<ModelInfo> models_;
};

// Every built-in model.
Registry builtin_registry();

}  // namespace goodsim::models
