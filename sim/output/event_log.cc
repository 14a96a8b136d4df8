#include "sim/output/event_log.h"

namespace goodsim::output {

EventLog::EventLog(const std::filesystem::path& target, uint64_t max_bytes)
    : file_(target), max_bytes_(max_bytes) {}

void EventLog::record(core::SimTime t, std::string_view policy, std::string_view event,
                      const nlohmann::json& fields) {
  if (dropped_ > 0) {
    ++dropped_;
    return;
  }
  nlohmann::json line = {{"t", t.seconds_f()}, {"policy", policy}, {"event", event}};
  for (const auto& [key, value] : fields.items()) line[key] = value;
  const std::string text = line.dump() + '\n';
  // The marker line (under 100 bytes) fits in the room kept for it: the file never passes
  // the cap.
  constexpr uint64_t kMarkerRoom = 128;
  if (bytes_ + text.size() + kMarkerRoom > max_bytes_) {
    ++dropped_;
    const nlohmann::json marker = {{"truncated", true}, {"max_bytes", max_bytes_},
                                   {"t", t.seconds_f()}};
    file_.stream() << marker.dump() << '\n';
    return;
  }
  bytes_ += text.size();
  file_.stream() << text;
}

}  // namespace goodsim::output
