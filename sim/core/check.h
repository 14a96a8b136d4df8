// GOODSIM_CHECK: always-on internal invariant checks.
//
// A failed check means goodsim itself is wrong (never the user's input, which
// raises an exception with a precise message instead). It prints the
// condition, the source location and, when a simulation context is installed
// for the current thread, the simulated time and the event being executed;
// then it aborts.
#pragma once

#include <string>

namespace goodsim::core {

// Describes where a simulation is, for check-failure messages. The engine
// installs one per thread while it runs (see CheckContextScope).
class CheckContext {
 public:
  virtual ~CheckContext() = default;
  virtual std::string describe() const = 0;
};

// Installs `ctx` as this thread's context for the scope's lifetime.
class CheckContextScope {
 public:
  explicit CheckContextScope(const CheckContext* ctx);
  ~CheckContextScope();
  CheckContextScope(const CheckContextScope&) = delete;
  CheckContextScope& operator=(const CheckContextScope&) = delete;

 private:
  const CheckContext* previous_;
};

[[noreturn]] void check_failed(const char* condition, const char* file, int line,
                               const std::string& message);

}  // namespace goodsim::core

#define GOODSIM_CHECK(cond)                                                   \
  do {                                                                        \
    if (!(cond)) ::goodsim::core::check_failed(#cond, __FILE__, __LINE__, ""); \
  } while (0)

#define GOODSIM_CHECK_MSG(cond, msg)                                            \
  do {                                                                          \
    if (!(cond)) ::goodsim::core::check_failed(#cond, __FILE__, __LINE__, (msg)); \
  } while (0)
