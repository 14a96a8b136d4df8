// A validated scenario as the Python module holds it: the document (with its
// overrides applied) and the prepared, immutable form that runs read.
//
// Copies are cheap and share the prepared scenario, which is only ever read,
// so runs may use it from worker threads without the GIL.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "app/scenario_source.h"
#include "models/runner.h"

namespace goodsim::python {

class ScenarioHandle {
 public:
  // Reads `source` (a scenario file when `is_file`, else the JSON text of a
  // document named `label` in messages), applies `overrides` ("path=value",
  // as --set) in order, and validates the result. Throws
  // scenario::ScenarioError; errors in an override name the file "overrides".
  static ScenarioHandle load(const std::string& source, bool is_file, const std::string& label,
                             const std::vector<std::string>& overrides);

  const app::ScenarioSource& source() const { return source_; }
  const models::PreparedScenario& prepared() const { return *prepared_; }
  std::vector<std::string> policy_names() const;
  std::vector<std::string> policy_types() const;

 private:
  ScenarioHandle(app::ScenarioSource source, std::shared_ptr<const models::PreparedScenario> p)
      : source_(std::move(source)), prepared_(std::move(p)) {}

  app::ScenarioSource source_;
  std::shared_ptr<const models::PreparedScenario> prepared_;
};

}  // namespace goodsim::python
