// LearnerView: what code outside models/policy/ may know of a running policy —
// its learners and their slices — and the one thing it may tell it (the WAN
// changed). The chaos script targets "learner k" through it, so failure
// injectors never include the policy interface. policy::Policy implements it.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/cluster/layout.h"

namespace goodsim::models {

class LearnerView {
 public:
  virtual ~LearnerView() = default;
  // Learners of this policy, for chaos scripts that target "learner k".
  // Policies without learners have one: every slice they train on. Before start(), a
  // policy whose count depends on the cluster may answer 0.
  virtual uint32_t learner_count() const = 0;
  // Slices of learner k. REQUIRES: k < learner_count(); start() has run.
  virtual std::vector<cluster::SliceId> learner_slices(uint32_t k) const = 0;
  // The WAN changed (a partition began or ended): communication costs may
  // differ from now on.
  virtual void on_network_change() {}
};

}  // namespace goodsim::models
