// The loss model of one policy run, and when it reaches the target loss.
//
// Policies report training to the tracker (it forwards to the scenario's loss
// model, see models/loss/loss_model.h) only as it becomes durable: a step that
// may still be rolled back is reported once it can no longer be. After every
// report the tracker checks the target loss; reaching it ends the run (the
// simulation stops), and time_to_target_s is that moment.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "models/loss/loss_model.h"
#include "sim/core/simulation.h"

namespace goodsim::models {

class LossTracker {
 public:
  LossTracker(std::unique_ptr<loss::LossModel> model, std::optional<double> target_loss,
              core::Simulation& sim);

  // Called by the policy in its start(). Until then loss() is empty.
  void start(const loss::TrainingShape& shape);
  bool started() const { return started_; }

  void on_inner_steps(uint32_t learner, uint64_t steps, double batch_tokens);
  void on_merge(uint32_t fragment, const std::vector<loss::Contribution>& contributors);
  void on_receive(uint32_t learner, uint32_t fragment);
  void on_leave(uint32_t learner);
  void on_rejoin(uint32_t learner);

  std::optional<double> loss() const;
  std::optional<core::SimTime> target_reached_at() const { return reached_; }

 private:
  void check_target();

  std::unique_ptr<loss::LossModel> model_;
  std::optional<double> target_;
  core::Simulation& sim_;
  bool started_ = false;
  std::optional<core::SimTime> reached_;
};

}  // namespace goodsim::models
