#include "app/run_options.h"

#include <fmt/format.h>

#include <stdexcept>

#include "sim/scenario/error.h"
#include "sim/scenario/units.h"

namespace goodsim::app {

models::ResourceLimits resolve_limits(const LimitOptions& o) {
  models::ResourceLimits limits;
  if (o.max_memory) {
    try {
      limits.max_bytes = scenario::parse_bytes(*o.max_memory);
    } catch (const std::invalid_argument& e) {
      throw scenario::ScenarioError("--max-memory", "", e.what());
    }
  }
  if (o.max_events) {
    if (!(*o.max_events >= 1)) {
      throw scenario::ScenarioError("--max-events", "",
                                    fmt::format("expected a count >= 1, got {}", *o.max_events));
    }
    limits.max_events = *o.max_events;
  }
  return limits;
}

}  // namespace goodsim::app
