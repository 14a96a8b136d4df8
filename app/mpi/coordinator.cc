#include "app/mpi/coordinator.h"

#include <fmt/format.h>
#include <signal.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <ostream>
#include <stdexcept>

#include "app/sweep/executor.h"

namespace goodsim::app::mpi {
namespace {

std::string task_text(const sweep::SweepPlan& plan, const sweep::SweepTask& t) {
  return fmt::format("point {} seed {}", t.point, plan.replication.seed(t.k));
}

}  // namespace

Coordinator::Coordinator(MpiSession& mpi, const sweep::SweepPlan& plan, sweep::ResultsLog& log,
                         sweep::SweepSchedule& schedule)
    : mpi_(mpi), plan_(plan), log_(log), schedule_(schedule), ranks_(mpi.size()) {}

std::string Coordinator::run(unsigned jobs, sweep::Progress::Mode mode, std::ostream& err) {
  for (sweep::SweepTask& t : schedule_.start()) queue_.push_back(std::move(t));
  progress_.emplace(err, mode, schedule_.runs_resumed());
  ranks_[0].want = jobs;
  {
    sweep::TaskPool pool(jobs);
    try {
      loop(pool, err);
    } catch (...) {
      // No stop messages: a worker may be blocked sending to us; the caller
      // ends the whole job (MPI_Abort).
      progress_->finish(schedule_.runs_total() - schedule_.pending(), schedule_.runs_total());
      throw;
    }
  }
  stop_workers();
  progress_->finish(schedule_.runs_total(), schedule_.runs_total());
  return fmt::format("{} MPI ranks x {} job{}", mpi_.size(), jobs, jobs == 1 ? "" : "s");
}

void Coordinator::loop(sweep::TaskPool& pool, std::ostream& err) {
  const size_t total = schedule_.runs_total();
  if (schedule_.pending() > 0) progress_->update(total - schedule_.pending(), total);
  while (schedule_.pending() > 0) {
    if (MpiSession::teardown_requested()) report_teardown(err);
    bool busy = receive();
    busy = collect_local() || busy;
    dispatch(pool);
    mpi_.complete_posts(false);
    if (!busy) {
      std::unique_lock<std::mutex> lock(mutex_);
      done_cv_.wait_for(lock, kIdleWait, [this] { return !local_done_.empty() || local_error_; });
    }
  }
}

// Handles every message waiting; true if there was one.
bool Coordinator::receive() {
  bool any = false;
  int from = 0;
  Tag tag{};
  while (std::optional<Bytes> msg = mpi_.poll(from, tag)) {
    any = true;
    Rank& r = ranks_[static_cast<size_t>(from)];
    if (tag == Tag::kHello) {
      r.info = decode_worker(*msg);
    } else if (tag == Tag::kResults) {
      ResultBatch batch = decode_results(*msg);
      r.want += batch.want;
      for (sweep::TaskResult& res : batch.results) record(from, std::move(res));
    } else if (tag == Tag::kError) {
      throw std::runtime_error(fmt::format("rank {} ({}, pid {}): {}", from, r.info.host,
                                           r.info.pid, decode_text(*msg)));
    }
  }
  return any;
}

bool Coordinator::collect_local() {
  std::vector<sweep::TaskResult> done;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (local_error_) std::rethrow_exception(local_error_);
    done.swap(local_done_);
  }
  ranks_[0].want += done.size();
  for (sweep::TaskResult& res : done) record(0, std::move(res));
  return !done.empty();
}

// Gives each rank as many queued tasks as it asked for, one message each.
void Coordinator::dispatch(sweep::TaskPool& pool) {
  for (size_t r = 0; r < ranks_.size() && !queue_.empty(); ++r) {
    Rank& rank = ranks_[r];
    TaskBatch batch;
    while (rank.want > 0 && !queue_.empty()) {
      batch.tasks.push_back(std::move(queue_.front()));
      queue_.pop_front();
      --rank.want;
    }
    if (batch.tasks.empty()) continue;
    rank.holds.insert(rank.holds.end(), batch.tasks.begin(), batch.tasks.end());
    if (r == 0) {
      for (const sweep::SweepTask& t : batch.tasks) pool.submit([this, t] { run_local(t); });
    } else {
      mpi_.post(static_cast<int>(r), Tag::kTasks, encode(batch));
    }
  }
}

void Coordinator::run_local(const sweep::SweepTask& task) {
  try {
    sweep::TaskResult res = sweep::run_task(plan_, task);
    const std::lock_guard<std::mutex> lock(mutex_);
    local_done_.push_back(std::move(res));
  } catch (...) {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (!local_error_) local_error_ = std::current_exception();
  }
  done_cv_.notify_one();
}

void Coordinator::record(int rank, sweep::TaskResult result) {
  std::vector<sweep::SweepTask>& holds = ranks_[static_cast<size_t>(rank)].holds;
  const auto it = std::find_if(holds.begin(), holds.end(), [&](const sweep::SweepTask& t) {
    return t.point == result.task.point && t.k == result.task.k;
  });
  if (it == holds.end()) {
    throw std::runtime_error(fmt::format("rank {} returned {}, which it was not given", rank,
                                         task_text(plan_, result.task)));
  }
  holds.erase(it);
  log_.append(sweep::format_rows(plan_.table, result.rows));  // durable before it counts
  for (sweep::SweepTask& t : schedule_.complete(std::move(result))) queue_.push_back(std::move(t));
  progress_->update(schedule_.runs_total() - schedule_.pending(), schedule_.runs_total());
}

void Coordinator::stop_workers() {
  TaskBatch stop;
  stop.stop = true;
  for (int r = 1; r < mpi_.size(); ++r) mpi_.post(r, Tag::kTasks, encode(stop));
  mpi_.complete_posts(true);
}

std::string Coordinator::held_tasks(int rank) const {
  std::string text;
  for (const sweep::SweepTask& t : ranks_[static_cast<size_t>(rank)].holds) {
    text += (text.empty() ? "" : ", ") + task_text(plan_, t);
  }
  return text.empty() ? "no task" : text;
}

// The runtime is stopping the job: names the ranks found dead (those on this
// node whose process is gone) and their tasks, then exits without MPI (it is
// being torn down). Rows already appended stay for --resume.
void Coordinator::report_teardown(std::ostream& err) const {
  const std::string here = MpiSession::host();
  std::string dead;
  for (int r = 1; r < mpi_.size(); ++r) {
    const WorkerInfo& w = ranks_[static_cast<size_t>(r)].info;
    if (w.host != here || w.pid <= 0) continue;
    if (::kill(static_cast<pid_t>(w.pid), 0) == 0 || errno != ESRCH) continue;
    dead += fmt::format("\n  rank {} (pid {} on {}) died while running: {}", r, w.pid, w.host,
                        held_tasks(r));
  }
  if (dead.empty()) {
    dead = "\n  no rank on this node died; tasks held by the other ranks:";
    for (int r = 1; r < mpi_.size(); ++r) {
      dead += fmt::format("\n  rank {} ({}): {}", r, ranks_[static_cast<size_t>(r)].info.host,
                          held_tasks(r));
    }
  }
  err << fmt::format(
             "\nerror: the MPI runtime is stopping this sweep:{}\nthe rows written so far are "
             "kept in {}/results.csv; finish the sweep with the same command and --resume\n",
             dead, plan_.dir.string())
      << std::flush;
  std::_Exit(2);
}

}  // namespace goodsim::app::mpi
