// PolicyBase: the bookkeeping every built-in policy keeps in the same way.
//
// Holds the run's chip-time ledger, its outage tracker and the instant the
// job's token target was reached, and answers Policy's accessors for them.
// A derived policy replaces ledger_ with one sized to the cluster in
// start() (the ledger made here covers zero chips), feeds outages_ as
// training stops and resumes, and sets target_at_ once, when the target is
// reached. Nothing here schedules events or reads the cluster.
#pragma once

#include <optional>

#include "models/policy/chip_time_ledger.h"
#include "models/policy/outage_tracker.h"
#include "models/policy/policy.h"

namespace goodsim::models::policy {

class PolicyBase : public Policy {
 public:
  std::optional<core::SimTime> target_reached_at() const override { return target_at_; }
  const ChipTimeLedger& ledger() const override { return ledger_; }
  const OutageTracker& outages() const override { return outages_; }

 protected:
  PolicyBase() : ledger_(0) {}

  ChipTimeLedger ledger_;
  OutageTracker outages_;
  std::optional<core::SimTime> target_at_;  // unset until the target is reached
};

}  // namespace goodsim::models::policy
