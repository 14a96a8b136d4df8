// A discrete knob of `goodsim calibrate --choose`: a recovery structure the
// data selects among a few alternatives.
//
// Two forms:
//   --choose PATH[,PATH...]=A|B|C   a choice or boolean scenario key (or keys
//       that must move together) and the values to try, e.g.
//       policies.0.failure_during_restart=absorb|extend|restart
//   --choose NAME=@a.json|@b.json   whole alternatives given as scenario
//       fragment files, for structures that differ in more than one key.
//
// A fragment is a JSON object shaped like a scenario; it is merged into the
// scenario: objects key by key, lists element by element (index i of the
// fragment's list merges into index i of the scenario's, extra elements are
// appended), anything else replaces the scenario's value (null: the key's
// default). An optional top-level "description" string describes the
// alternative and is not merged.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "models/registry.h"

namespace goodsim::app::calibrate {

class Choice {
 public:
  struct Alternative {
    std::string label;         // the value as given ("absorb", "@pool.json")
    nlohmann::json value;      // key form: the JSON value; fragment form: the fragment
    std::string description;   // fragment form: its "description", else ""
  };

  // Parses the text and reads fragment files. Throws scenario::ScenarioError
  // (file "--choose PATH") on malformed text, fewer than two alternatives, a
  // repeated alternative, mixed @file and plain alternatives, or a fragment
  // file that cannot be read or is not a JSON object.
  static Choice parse(const std::string& text);

  // Checks the key form against a scenario document: every path must be a
  // choice or boolean key of the model (or top-level key) it addresses, and
  // every alternative one of the values it accepts. Throws
  // scenario::ScenarioError naming the argument. No-op for fragments.
  void check(const nlohmann::json& doc, const models::Registry& registry) const;

  // Applies alternative `a` to the scenario document. REQUIRES: a < size().
  void apply(nlohmann::json& doc, size_t a) const;

  const std::string& name() const { return name_; }  // the text before '='
  const std::vector<std::string>& paths() const { return paths_; }  // key form only
  bool fragments() const { return fragments_; }
  const std::vector<Alternative>& alternatives() const { return alternatives_; }
  size_t size() const { return alternatives_.size(); }

 private:
  std::string name_;
  std::vector<std::string> paths_;
  bool fragments_ = false;
  std::vector<Alternative> alternatives_;
};

// Merges fragment `patch` into `doc` as described above.
void merge_fragment(nlohmann::json& doc, const nlohmann::json& patch);

}  // namespace goodsim::app::calibrate
