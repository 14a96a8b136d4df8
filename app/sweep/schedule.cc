#include "app/sweep/schedule.h"

#include <fmt/format.h>

#include "app/sweep/metrics.h"

namespace goodsim::app::sweep {

TaskResult run_task(const SweepPlan& plan, const SweepTask& task,
                    const std::atomic<bool>* cancel) {
  const models::PreparedScenario& prepared = plan.points[task.point];
  const uint64_t seed = plan.replication.seed(task.k);
  TaskResult out{task, {}};
  for (size_t i : task.policies) {
    if (cancel != nullptr && cancel->load()) throw SweepCancelled();
    const output::PolicyResult r = models::run_policy(prepared, i, seed, nullptr);
    out.rows.push_back(
        {task.point, seed, i, metric_values(r), fmt::format("{:016x}", r.fingerprint)});
  }
  return out;
}

SweepSchedule::SweepSchedule(const SweepPlan& plan, const LoadedResults& loaded)
    : plan_(plan), counts_(plan.points.size(), 0), outstanding_(plan.points.size(), 0) {
  for (const models::PreparedScenario& p : plan.points) results_.emplace_back(p.policies.size());
  for (const ResultRow& row : loaded.rows) {
    results_[row.point].put(static_cast<size_t>(row.seed - plan.replication.first_seed), row);
  }
}

std::vector<SweepTask> SweepSchedule::start() {
  std::vector<SweepTask> out;
  for (size_t p = 0; p < counts_.size(); ++p) advance(p, out);
  resumed_ = total_ - pending_;
  return out;
}

std::vector<SweepTask> SweepSchedule::complete(TaskResult result) {
  const size_t point = result.task.point;
  for (ResultRow& row : result.rows) results_[point].put(result.task.k, std::move(row));
  --pending_;
  std::vector<SweepTask> out;
  if (--outstanding_[point] == 0) advance(point, out);
  return out;
}

// Hands out the point's runs up to its seed count that lack rows; when there
// are none, asks the replication rule for more seeds and repeats.
void SweepSchedule::advance(size_t point, std::vector<SweepTask>& out) {
  PointResults& res = results_[point];
  size_t from = counts_[point];
  size_t n = from == 0 ? plan_.replication.initial : from;
  while (true) {
    res.reserve_seeds(n);
    size_t queued = 0, owned = 0;
    for (size_t k = 0; k < n; ++k) {
      if (plan_.shard && !plan_.shard->owns(point, k, plan_.replication)) continue;
      ++owned;
      if (k >= from) ++total_;
      std::vector<size_t> missing = res.missing(k);
      if (missing.empty()) continue;
      ++queued;
      out.push_back({point, k, std::move(missing)});
    }
    counts_[point] = n;
    if (queued > 0) {
      outstanding_[point] = queued;
      pending_ += queued;
      return;
    }
    if (owned == 0) return;  // another shard's point
    const size_t next = plan_.replication.next_count(n, goodput(point, n));
    if (next == n) return;
    from = n;
    n = next;
  }
}

std::vector<Estimate> SweepSchedule::goodput(size_t point, size_t n) const {
  std::vector<Estimate> out;
  for (size_t i = 0; i < results_[point].policies(); ++i) {
    out.push_back(estimate(present(results_[point].metric(i, kGoodput, n))));
  }
  return out;
}

std::vector<ResultRow> SweepSchedule::canonical_rows() const {
  std::vector<ResultRow> rows;
  for (size_t p = 0; p < results_.size(); ++p) results_[p].append_rows(counts_[p], rows);
  return rows;
}

}  // namespace goodsim::app::sweep
