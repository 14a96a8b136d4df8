#include "app/sweep/task_pool.h"

#include <system_error>

#include "sim/core/check.h"

namespace goodsim::app::sweep {

TaskPool::TaskPool(unsigned threads) {
  GOODSIM_CHECK(threads >= 1 && threads <= kMaxJobs);
  workers_.reserve(threads);
  for (unsigned i = 0; i < threads; ++i) {
    try {
      workers_.emplace_back([this](const std::stop_token& stop) { work(stop); });
    } catch (const std::system_error&) {
      if (workers_.empty()) throw;  // not even one worker: nothing can run
      break;
    }
  }
}

TaskPool::~TaskPool() {
  for (std::jthread& w : workers_) w.request_stop();
  ready_.notify_all();
  workers_.clear();  // joins
}

void TaskPool::submit(std::function<void()> task) {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (error_) return;
    queue_.push_back(std::move(task));
  }
  ready_.notify_one();
}

void TaskPool::wait() {
  std::unique_lock<std::mutex> lock(mutex_);
  idle_.wait(lock, [this] { return queue_.empty() && running_ == 0; });
  if (error_) {
    std::exception_ptr e = error_;
    error_ = nullptr;
    std::rethrow_exception(e);
  }
}

unsigned TaskPool::default_threads() {
  const unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : n;
}

void TaskPool::work(const std::stop_token& stop) {
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    ready_.wait(lock, stop, [this] { return !queue_.empty(); });
    if (stop.stop_requested()) return;
    std::function<void()> task = std::move(queue_.front());
    queue_.pop_front();
    ++running_;
    lock.unlock();
    std::exception_ptr failure;
    try {
      task();
    } catch (...) {
      failure = std::current_exception();
    }
    lock.lock();
    --running_;
    if (failure && !error_) {
      error_ = failure;
      queue_.clear();
    }
    if (queue_.empty() && running_ == 0) idle_.notify_all();
  }
}

}  // namespace goodsim::app::sweep
