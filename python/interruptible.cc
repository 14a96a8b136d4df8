#include "python/interruptible.h"

#include <pybind11/pybind11.h>

#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>

namespace goodsim::python {

namespace py = pybind11;

namespace {

constexpr std::chrono::milliseconds kSignalPoll{50};

// True when a Python signal handler raised. Takes the GIL for the check.
bool python_signal_raised() {
  const py::gil_scoped_acquire gil;
  return PyErr_CheckSignals() != 0;
}

}  // namespace

void run_interruptibly(const std::function<void(const std::atomic<bool>& cancel)>& work) {
  std::atomic<bool> cancel{false};
  std::exception_ptr error;
  bool interrupted = false;
  {
    const py::gil_scoped_release no_gil;
    std::mutex mutex;
    std::condition_variable finished;
    bool done = false;
    std::thread worker([&] {
      try {
        work(cancel);
      } catch (...) {
        error = std::current_exception();
      }
      const std::lock_guard<std::mutex> lock(mutex);
      done = true;
      finished.notify_all();
    });
    std::unique_lock<std::mutex> lock(mutex);
    while (!finished.wait_for(lock, kSignalPoll, [&] { return done; })) {
      if (interrupted) continue;
      lock.unlock();
      interrupted = python_signal_raised();
      if (interrupted) cancel = true;
      lock.lock();
    }
    lock.unlock();
    worker.join();
  }
  if (interrupted) throw py::error_already_set();  // the signal handler's exception
  if (error) std::rethrow_exception(error);
}

}  // namespace goodsim::python
