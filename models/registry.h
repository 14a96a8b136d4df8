// The catalogue of built-in models, filled explicitly in registry.cc (one line
// per model; no static self-registration, no globals).
//
// A model is registered with its JSON "type" (which equals its file stem), a
// one-line help, example configs (ModelExamples) and its config parser. Parsing a scenario entry yields a
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

// Configs every registered model carries, as JSON object text without "name"
// and "type". The conformance tests (tests/models/test_*_conformance.cc) walk
// the registry and run each model on them, so a new model is tested by
// registering it; a model registered without them fails those tests.
struct ModelExamples {
  ModelExamples(std::string valid_config, std::string quiet_config = {})
      : valid(std::move(valid_config)), quiet(std::move(quiet_config)) {}

  // A minimal valid entry that does something in a 20-day run of a 64-chip
  // cluster (4 slices of 4 hosts of 4 chips, one site): a failure injector
  // fails units, a straggler model slows some, a policy trains. Files are
  // named relative to scenarios/.
  std::string valid;
  // Failure injectors only: the same model at zero failure rate, which must
  // cause no failure in that run (no window, no trace row, or, for a model
  // without a rate of exactly zero, the longest mean time between failures).
  std::string quiet;
};

struct ModelInfo {
  ModelKind kind;
  std::string type;
  std::string help;
  ModelExamples examples;
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
  void add_failure(std::string type, std::string help, ModelExamples examples) {
    add(ModelKind::kFailure, std::move(type), std::move(help), std::move(examples))
        .parse_failure = stream_parser<FailureMaker, Model, Config>();
  }
  template <class Model, class Config>
  void add_straggler(std::string type, std::string help, ModelExamples examples) {
    add(ModelKind::kStraggler, std::move(type), std::move(help), std::move(examples))
        .parse_straggler = stream_parser<StragglerMaker, Model, Config>();
  }
  template <class Model, class Config>
  void add_policy(std::string type, std::string help, ModelExamples examples) {
    add(ModelKind::kPolicy, std::move(type), std::move(help), std::move(examples))
        .parse_policy = [](scenario::ObjectReader& r, const ParseContext& ctx) -> PolicyMaker {
      const Config c = parse_config<Config>(r, ctx);
      return [c] { return std::make_unique<Model>(c); };
    };
  }

  // The model of `kind` named `type`, or null.
  const ModelInfo* find(ModelKind kind, const std::string& type) const;
  std::vector<std::string> types(ModelKind kind) const;
  const std::vector<ModelInfo>& models() const { return models_; }

 private:
  // A parser whose maker builds Model(config, stream) for each run.
  template <class Maker, class Model, class Config>
  static auto stream_parser() {
    return [](scenario::ObjectReader& r, const ParseContext& ctx) -> Maker {
      const Config c = parse_config<Config>(r, ctx);
      return [c](const std::string& stream) { return std::make_unique<Model>(c, stream); };
    };
  }
  ModelInfo& add(ModelKind kind, std::string type, std::string help, ModelExamples examples);

  std::vector<ModelInfo> models_;
};

// Every built-in model.
Registry builtin_registry();

}  // namespace goodsim::models
