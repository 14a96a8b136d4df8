#include "models/loss_tracker.h"

namespace goodsim::models {

LossTracker::LossTracker(std::unique_ptr<loss::LossModel> model, std::optional<double> target_loss,
                         core::Simulation& sim)
    : model_(std::move(model)), target_(target_loss), sim_(sim) {}

void LossTracker::start(const loss::TrainingShape& shape) {
  model_->start(shape, sim_.rng("loss"));
  started_ = true;
}

void LossTracker::on_inner_steps(uint32_t learner, uint64_t steps, double batch_tokens) {
  if (steps == 0) return;
  model_->on_inner_steps(learner, steps, batch_tokens);
  check_target();
}

void LossTracker::on_merge(uint32_t fragment, const std::vector<loss::Contribution>& contributors) {
  model_->on_merge(fragment, contributors);
  check_target();
}

void LossTracker::on_receive(uint32_t learner, uint32_t fragment) {
  model_->on_receive(learner, fragment);
  check_target();
}

void LossTracker::on_leave(uint32_t learner) { model_->on_leave(learner); }

void LossTracker::on_rejoin(uint32_t learner) {
  model_->on_rejoin(learner);
  check_target();
}

std::optional<double> LossTracker::loss() const {
  if (!started_) return std::nullopt;
  return model_->loss();
}

void LossTracker::check_target() {
  if (!target_ || reached_ || model_->loss() > *target_) return;
  reached_ = sim_.now();
  sim_.request_stop();
}

}  // namespace goodsim::models
