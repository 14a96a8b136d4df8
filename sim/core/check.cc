#include "sim/core/check.h"

#include <cstdio>
#include <cstdlib>

namespace goodsim::core {
namespace {
// Per-thread, so sweeps running simulations on several threads each report
// their own position. Not a global in the design sense: it only decorates the
// message of an abort and never influences results.
thread_local const CheckContext* t_context = nullptr;
}  // namespace

CheckContextScope::CheckContextScope(const CheckContext* ctx) : previous_(t_context) {
  t_context = ctx;
}

CheckContextScope::~CheckContextScope() { t_context = previous_; }

void check_failed(const char* condition, const char* file, int line,
                  const std::string& message) {
  std::fprintf(stderr, "goodsim: internal check failed: %s at %s:%d", condition, file, line);
  if (!message.empty()) std::fprintf(stderr, ": %s", message.c_str());
  std::fprintf(stderr, "\n");
  if (t_context != nullptr) {
    std::fprintf(stderr, "goodsim: while %s\n", t_context->describe().c_str());
  }
  std::fflush(stderr);
  std::abort();
}

}  // namespace goodsim::core
