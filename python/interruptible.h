// Long simulations called from Python: run without the GIL, and stop on Ctrl-C.
#pragma once

#include <atomic>
#include <functional>
#include <stdexcept>

namespace goodsim::python {

// What work throws when it sees its cancel flag raised.
class Cancelled : public std::runtime_error {
 public:
  Cancelled() : std::runtime_error("cancelled") {}
};

// Runs `work` on a thread of its own while the calling thread waits with the
// GIL released, so other Python threads run meanwhile. Every 50 ms the caller
// takes the GIL back briefly to let Python handle pending signals; when a
// handler raises (Ctrl-C: KeyboardInterrupt), `cancel` is set, and once `work`
// has returned, that exception propagates to Python (pybind11's
// error_already_set). Otherwise an exception thrown by `work` is rethrown
// here. `work` should poll `cancel` between units of work (a policy run) and
// then return or throw.
// REQUIRES: the calling thread holds the GIL; `work` never touches Python.
void run_interruptibly(const std::function<void(const std::atomic<bool>& cancel)>& work);

}  // namespace goodsim::python
