#include "app/calibrate/shared_runs.h"

#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>

namespace goodsim::app::calibrate {

void SharedRuns::run(std::vector<std::function<void()>> tasks) {
  struct Batch {
    std::mutex mutex;
    std::condition_variable done;
    size_t remaining = 0;
    std::exception_ptr error;
  };
  auto batch = std::make_shared<Batch>();
  batch->remaining = tasks.size();
  for (std::function<void()>& t : tasks) {
    pool_.submit([batch, task = std::move(t)] {
      std::exception_ptr error;
      try {
        task();
      } catch (...) {
        error = std::current_exception();
      }
      const std::lock_guard lock(batch->mutex);
      if (error && !batch->error) batch->error = error;
      if (--batch->remaining == 0) batch->done.notify_all();
    });
  }
  std::unique_lock lock(batch->mutex);
  batch->done.wait(lock, [&] { return batch->remaining == 0; });
  if (batch->error) std::rethrow_exception(batch->error);
}

}  // namespace goodsim::app::calibrate
