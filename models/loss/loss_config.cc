#include "models/loss/loss_config.h"

#include "sim/core/check.h"

namespace goodsim::models::loss {

std::vector<std::pair<std::string, std::string>> loss_model_types() {
  return {{"scaling_law", "closed-form Chinchilla-type law in the effective tokens that reached "
                          "the global model, calibrated to the published DiLoCo fits"},
          {"nqm", "noisy quadratic model running the inner SGD, merges and outer Nesterov "
                  "steps in closed form per dimension (O(d) per event)"}};
}

LossConfig LossConfig::from_json(scenario::ObjectReader& r) {
  LossConfig c;
  c.type = r.choice("type", {"scaling_law", "nqm"}, "surrogate loss model");
  if (c.type == "nqm") {
    c.nqm = NqmConfig::from_json(r);
  } else {
    c.scaling_law = ScalingLawConfig::from_json(r);
  }
  return c;
}

std::unique_ptr<LossModel> make_loss_model(const LossConfig& config) {
  if (config.type == "nqm") return std::make_unique<NqmLoss>(config.nqm);
  GOODSIM_CHECK(config.type == "scaling_law");
  return std::make_unique<ScalingLawLoss>(config.scaling_law);
}

}  // namespace goodsim::models::loss
