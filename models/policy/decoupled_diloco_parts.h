// What the parts of decoupled_diloco that act on the rounds (the syncer,
// decoupled_diloco_syncer.h, and the late-fragment gate,
// decoupled_diloco_gate.h) are built from: the run, the policy's
// configuration, its learners and the fragment schedule, all owned by the
// policy (decoupled_diloco.h) and outliving both.
#pragma once

#include "models/policy/decoupled_diloco_config.h"
#include "models/policy/decoupled_diloco_learner.h"
#include "models/policy/decoupled_diloco_schedule.h"
#include "models/run_context.h"

namespace goodsim::models::policy {

struct DecoupledDilocoParts {
  RunContext& ctx;
  const DecoupledDilocoConfig& config;
  DecoupledDilocoLearners& learners;
  const FragmentSchedule& schedule;
};

}  // namespace goodsim::models::policy
