#include "cli/sweep/executor.h"

#include <fmt/format.h>

#include "cli/sweep/metrics.h"

namespace goodsim::cli::sweep {

SweepExecutor::SweepExecutor(const SweepPlan& plan, ResultsLog* log, const LoadedResults& loaded)
    : plan_(plan), log_(log), counts_(plan.points.size(), 0), outstanding_(plan.points.size(), 0) {
  for (const models::PreparedScenario& p : plan.points) results_.emplace_back(p.policies.size());
  for (const ResultRow& row : loaded.rows) {
    results_[row.point].put(static_cast<size_t>(row.seed - plan.replication.first_seed), row);
  }
}

void SweepExecutor::run(unsigned jobs, Progress::Mode mode, std::ostream& err,
                        const std::atomic<bool>* cancel) {
  cancel_ = cancel;
  TaskPool pool(jobs);
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    for (size_t p = 0; p < counts_.size(); ++p) {
      counts_[p] = plan_.replication.initial;
      total_ += counts_[p];
      advance(p, pool);
    }
    resumed_ = total_ - pending_;
    progress_.emplace(err, mode, resumed_);
    if (pending_ > 0) progress_->update(total_ - pending_, total_);
  }
  try {
    pool.wait();
  } catch (...) {
    const std::lock_guard<std::mutex> lock(mutex_);
    progress_->finish(total_ - pending_, total_);
    throw;
  }
  progress_->finish(total_, total_);
}

void SweepExecutor::advance(size_t point, TaskPool& pool) {
  PointResults& res = results_[point];
  while (true) {
    const size_t n = counts_[point];
    res.reserve_seeds(n);
    size_t queued = 0;
    for (size_t k = 0; k < n; ++k) {
      std::vector<size_t> missing = res.missing(k);
      if (missing.empty()) continue;
      ++queued;
      pool.submit([this, point, k, missing = std::move(missing), &pool] {
        run_one(point, k, missing, pool);
      });
    }
    if (queued > 0) {
      outstanding_[point] = queued;
      pending_ += queued;
      return;
    }
    const size_t next = plan_.replication.next_count(n, goodput(point, n));
    if (next == n) return;
    counts_[point] = next;
    total_ += next - n;
  }
}

void SweepExecutor::run_one(size_t point, size_t k, const std::vector<size_t>& policies,
                            TaskPool& pool) {
  const models::PreparedScenario& prepared = plan_.points[point];
  const uint64_t seed = plan_.replication.seed(k);
  std::vector<ResultRow> rows;
  std::string lines;
  for (size_t i : policies) {
    if (cancel_ != nullptr && cancel_->load()) throw SweepCancelled();
    const output::PolicyResult r = models::run_policy(prepared, i, seed, nullptr);
    rows.push_back({point, seed, i, metric_values(r), fmt::format("{:016x}", r.fingerprint)});
    lines += format_row(plan_.table, rows.back());
  }
  if (log_ != nullptr) log_->append(lines);  // durable before it counts as done
  const std::lock_guard<std::mutex> lock(mutex_);
  for (ResultRow& row : rows) results_[point].put(k, std::move(row));
  --pending_;
  progress_->update(total_ - pending_, total_);
  if (--outstanding_[point] == 0) advance(point, pool);
}

std::vector<Estimate> SweepExecutor::goodput(size_t point, size_t n) const {
  std::vector<Estimate> out;
  for (size_t i = 0; i < results_[point].policies(); ++i) {
    out.push_back(estimate(present(results_[point].metric(i, kGoodput, n))));
  }
  return out;
}

std::vector<ResultRow> SweepExecutor::canonical_rows() const {
  std::vector<ResultRow> rows;
  for (size_t p = 0; p < results_.size(); ++p) results_[p].append_rows(counts_[p], rows);
  return rows;
}

}  // namespace goodsim::cli::sweep
