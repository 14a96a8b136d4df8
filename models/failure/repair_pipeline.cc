#include "models/failure/repair_pipeline.h"

#include "sim/scenario/distribution_reader.h"

namespace goodsim::models::failure {

RepairPipeline RepairPipeline::single(core::Distribution time) {
  RepairPipeline p;
  p.stages_.push_back({"repair", std::move(time), 1.0});
  return p;
}

RepairPipeline RepairPipeline::from_json(scenario::ObjectReader& r, core::Duration def) {
  const bool staged = r.has("repair");
  if (staged && r.has("repair_time")) {
    r.fail("repair", "give either repair (a list of stages) or repair_time, not both");
  }
  RepairPipeline p;
  for (scenario::ObjectReader& s : r.optional_object_list(
           "repair", "repair stages in order, each {name, time, success}: a stage that "
           "fails (probability 1 - success) escalates to the next; replaces repair_time")) {
    RepairStage stage;
    stage.name = s.string("name", "stage " + std::to_string(p.stages_.size()), "stage name");
    stage.time = scenario::duration_distribution(s, "time", "duration of this stage");
    stage.success = s.fraction("success", 1.0, "probability that this stage repairs the "
                               "unit (the last stage always does)");
    p.stages_.push_back(std::move(stage));
  }
  const core::Distribution one = scenario::duration_distribution(
      r, "repair_time", def, "time until a failed unit is back (one stage)");
  if (!staged) return single(one);
  if (p.stages_.empty() && !r.describing()) r.fail("repair", "at least one stage is needed");
  if (!p.stages_.empty() && p.stages_.back().success < 1.0) {
    r.fail("repair", "the last stage must succeed (success 1): nothing escalates after it");
  }
  return p;
}

RepairPipeline::Outcome RepairPipeline::draw(core::Rng& rng) const {
  Outcome out;
  for (uint32_t i = 0; i < stages_.size(); ++i) {
    const RepairStage& s = stages_[i];
    out.time += core::Duration::from_seconds(s.time.sample(rng));
    out.stage = i;
    if (s.success >= 1.0 || rng.uniform01() < s.success) break;
  }
  return out;
}

}  // namespace goodsim::models::failure
