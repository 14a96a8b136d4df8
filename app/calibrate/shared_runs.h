// Batches of simulations from several threads on one pool of workers.
//
// `goodsim calibrate --choose` fits every structure on its own thread; their
// simulations share one sweep::TaskPool of --jobs workers, so the machine
// runs --jobs simulations at a time however many structures are in flight.
// run() blocks until its own batch is done (not the whole pool's queue) and
// rethrows the first exception of its batch.
//
// Threading: run() may be called from any number of threads at once, never
// from a task of the pool itself (it would wait on its own worker).
#pragma once

#include <functional>
#include <vector>

#include "app/sweep/task_pool.h"

namespace goodsim::app::calibrate {

class SharedRuns {
 public:
  // REQUIRES: 1 <= jobs <= sweep::kMaxJobs.
  explicit SharedRuns(unsigned jobs) : pool_(jobs) {}

  void run(std::vector<std::function<void()>> tasks);

 private:
  sweep::TaskPool pool_;
};

}  // namespace goodsim::app::calibrate
