#include "app/mpi/worker.h"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <thread>

#include "app/sweep/schedule.h"
#include "app/sweep/task_pool.h"

namespace goodsim::app::mpi {
namespace {

// Rank 0 looks for dead ranks as soon as it sees the SIGTERM; the live ones
// stay that long (the runtime kills them after its own grace period anyway).
constexpr auto kTeardownGrace = std::chrono::milliseconds(300);

// Finished tasks (or the first failure), handed from the threads to MPI.
struct Outbox {
  std::mutex mutex;
  std::condition_variable cv;
  std::vector<sweep::TaskResult> done;
  std::string error;
};

void run_into(const sweep::SweepPlan& plan, const sweep::SweepTask& task, Outbox& box) {
  try {
    sweep::TaskResult res = sweep::run_task(plan, task);
    const std::lock_guard<std::mutex> lock(box.mutex);
    box.done.push_back(std::move(res));
  } catch (const std::exception& e) {
    const std::lock_guard<std::mutex> lock(box.mutex);
    if (box.error.empty()) {
      box.error = fmt::format("point {} seed {} failed: {}", task.point,
                              plan.replication.seed(task.k), e.what());
    }
  }
  box.cv.notify_one();
}

// Sends what the threads finished; true if anything was sent.
bool send_finished(const MpiSession& mpi, Outbox& box, bool& failed) {
  ResultBatch batch;
  std::string error;
  {
    const std::lock_guard<std::mutex> lock(box.mutex);
    batch.results.swap(box.done);
    if (!failed) error = box.error;
  }
  if (!error.empty()) {
    failed = true;  // reported once; rank 0 ends the job
    mpi.send(0, Tag::kError, encode_text(error));
  }
  if (batch.results.empty()) return !error.empty();
  batch.want = batch.results.size();
  mpi.send(0, Tag::kResults, encode(batch));
  return true;
}

}  // namespace

int run_worker(const MpiSession& mpi, const sweep::SweepPlan& plan, unsigned jobs) {
  mpi.send(0, Tag::kHello, encode(WorkerInfo{::getpid(), MpiSession::host()}));
  mpi.send(0, Tag::kResults, encode(ResultBatch{2 * size_t{jobs}, {}}));
  Outbox box;
  sweep::TaskPool pool(jobs);
  bool failed = false;
  while (true) {
    if (MpiSession::teardown_requested()) {
      std::this_thread::sleep_for(kTeardownGrace);
      std::_Exit(143);
    }
    int from = 0;
    Tag tag{};
    bool busy = false;
    if (std::optional<Bytes> msg = mpi.poll(from, tag)) {
      busy = true;
      TaskBatch batch = decode_tasks(*msg);
      if (batch.stop) return 0;
      for (sweep::SweepTask& t : batch.tasks) {
        pool.submit([&plan, &box, t = std::move(t)] { run_into(plan, t, box); });
      }
    }
    busy = send_finished(mpi, box, failed) || busy;
    if (!busy) {
      std::unique_lock<std::mutex> lock(box.mutex);
      box.cv.wait_for(lock, kIdleWait, [&] { return !box.done.empty(); });
    }
  }
}

}  // namespace goodsim::app::mpi
