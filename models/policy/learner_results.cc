#include "models/policy/learner_results.h"

namespace goodsim::models::policy {

std::vector<std::pair<std::string, double>> group_time_by_mode(const ElasticGroup& g,
                                                               core::SimTime end) {
  std::vector<std::pair<std::string, double>> out;
  for (size_t m = 0; m < ElasticGroup::kModeCount; ++m) {
    const auto mode = static_cast<ElasticGroup::Mode>(m);
    out.emplace_back(ElasticGroup::name_of(mode), g.mode_times().time(m, end).seconds_f());
  }
  return out;
}

output::LearnerResult group_learner_result(const ElasticGroup& g, uint32_t index,
                                           core::SimTime end) {
  output::LearnerResult r;
  r.index = index;
  r.chips = g.chips();
  r.time_by_mode = group_time_by_mode(g, end);
  const auto down = static_cast<size_t>(ElasticGroup::Mode::kDown);
  const uint64_t entered = g.mode_times().entries(down);
  r.rejoins = entered - (g.mode() == ElasticGroup::Mode::kDown && entered > 0 ? 1 : 0);
  return r;
}

void log_resize(const RunContext& ctx, const ElasticGroup& g, uint32_t& last,
                std::optional<uint32_t> learner) {
  const uint32_t now = g.active_slices();
  if (now == last) return;
  ctx.log("resize", [&] {
    nlohmann::json f = {{"from_slices", last}, {"to_slices", now},
                        {"mode", ElasticGroup::name_of(g.mode())}};
    if (learner) f["learner"] = *learner;
    return f;
  });
  last = now;
}

}  // namespace goodsim::models::policy
