// A small pool of worker threads for sweeps and checks.
//
// Tasks are run in submission order by `threads` std::jthread workers. A task
// may submit further tasks (adaptive replication does). wait() returns once
// every submitted task has finished; if a task threw, the remaining queued
// tasks are dropped and wait() rethrows the first exception.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace goodsim::app::sweep {

// The most workers --jobs may ask for: far more than any machine's cores, few enough that
// thread creation does not run into the process limits.
inline constexpr unsigned kMaxJobs = 1024;

class TaskPool {
 public:
  // REQUIRES: 1 <= threads <= kMaxJobs. When the system refuses a thread after the
  // first, the pool works with those it got (threads() tells how many).
  explicit TaskPool(unsigned threads);
  // Stops the workers once the running tasks return; queued tasks are dropped.
  ~TaskPool();
  TaskPool(const TaskPool&) = delete;
  TaskPool& operator=(const TaskPool&) = delete;

  void submit(std::function<void()> task);
  void wait();

  unsigned threads() const { return static_cast<unsigned>(workers_.size()); }

  // The default worker count: the number of cores (at least 1).
  static unsigned default_threads();

 private:
  void work(const std::stop_token& stop);

  std::mutex mutex_;
  std::condition_variable_any ready_;  // a task was queued, or stop
  std::condition_variable idle_;       // queue empty and nothing running
  std::deque<std::function<void()>> queue_;
  size_t running_ = 0;
  std::exception_ptr error_;
  std::vector<std::jthread> workers_;  // last: joined before the rest is destroyed
};

}  // namespace goodsim::app::sweep
