// The scenario's "loss" object and the factory of loss models (loss_model.h).
//
//   "loss": {"type": "scaling_law", ...}   closed form (scaling_law.h)
//   "loss": {"type": "nqm", ...}           noisy quadratic model (nqm.h)
//
// Both types read the scaling fits they are calibrated to (scaling_fits.h:
// "chinchilla", "fits", "optimal_batch", "sync_interval", "max_loss"), then
// their own parameters. docs/loss.md lists every key.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "models/loss/loss_model.h"
#include "models/loss/nqm.h"
#include "models/loss/scaling_law.h"
#include "sim/scenario/reader.h"

namespace goodsim::models::loss {

struct LossConfig {
  std::string type = "scaling_law";  // "scaling_law" | "nqm"
  ScalingLawConfig scaling_law;      // used when type == "scaling_law"
  NqmConfig nqm;                     // used when type == "nqm"

  // Reads "type" and the parameters of that type (strict: a parameter of the
  // other type is an unknown key). Throws ScenarioError. In describe mode it
  // documents the default type only; document each type with its config's
  // from_json (ScalingLawConfig, NqmConfig) on a describing reader.
  static LossConfig from_json(scenario::ObjectReader& r);
};

// The built-in loss model types, each with a one-line help (for list-models).
std::vector<std::pair<std::string, std::string>> loss_model_types();

// A fresh model of config.type; call start() before use.
std::unique_ptr<LossModel> make_loss_model(const LossConfig& config);

}  // namespace goodsim::models::loss
