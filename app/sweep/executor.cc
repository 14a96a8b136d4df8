#include "app/sweep/executor.h"

namespace goodsim::app::sweep {

void SweepExecutor::run(unsigned jobs, Progress::Mode mode, std::ostream& err,
                        const std::atomic<bool>* cancel) {
  cancel_ = cancel;
  TaskPool pool(jobs);
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    submit(schedule_.start(), pool);
    const size_t total = schedule_.runs_total();
    progress_.emplace(err, mode, schedule_.runs_resumed());
    if (schedule_.pending() > 0) progress_->update(total - schedule_.pending(), total);
  }
  try {
    pool.wait();
  } catch (...) {
    const std::lock_guard<std::mutex> lock(mutex_);
    progress_->finish(schedule_.runs_total() - schedule_.pending(), schedule_.runs_total());
    throw;
  }
  progress_->finish(schedule_.runs_total(), schedule_.runs_total());
}

void SweepExecutor::submit(std::vector<SweepTask> tasks, TaskPool& pool) {
  for (SweepTask& t : tasks) {
    pool.submit([this, task = std::move(t), &pool] { run_one(task, pool); });
  }
}

void SweepExecutor::run_one(const SweepTask& task, TaskPool& pool) {
  TaskResult result = run_task(plan_, task, cancel_);
  // Durable before it counts as done.
  if (log_ != nullptr) log_->append(format_rows(plan_.table, result.rows));
  const std::lock_guard<std::mutex> lock(mutex_);
  submit(schedule_.complete(std::move(result)), pool);
  progress_->update(schedule_.runs_total() - schedule_.pending(), schedule_.runs_total());
}

std::string format_rows(const SweepTable& table, const std::vector<ResultRow>& rows) {
  std::string lines;
  for (const ResultRow& row : rows) lines += format_row(table, row);
  return lines;
}

}  // namespace goodsim::app::sweep
