#include "sim/output/event_log.h"

namespace goodsim::output {

EventLog::EventLog(const std::filesystem::path& target) : file_(target) {}

void EventLog::record(core::SimTime t, std::string_view policy, std::string_view event,
                      const nlohmann::json& fields) {
  nlohmann::json line = {{"t", t.seconds_f()}, {"policy", policy}, {"event", event}};
  for (const auto& [key, value] : fields.items()) line[key] = value;
  file_.stream() << line.dump() << '\n';
}

}  // namespace goodsim::output
