// What a model's config parser may know besides its own scenario entry.
//
// Most configs only read their JSON object (`static Config from_json(
// scenario::ObjectReader&)`). A config that must check its input against the
// cluster, or read a side file named in the scenario (trace_replay), declares
// `static Config from_json(scenario::ObjectReader&, const ParseContext&)`
// instead; the registry passes the context to whichever form exists.
#pragma once

#include <filesystem>
#include <string>

#include "sim/cluster/layout.h"
#include "sim/scenario/scenario.h"

namespace goodsim::models {

struct ParseContext {
  // The scenario's cluster; null when describing parameters (list-models),
  // where a parser must not look at files or the cluster.
  const cluster::Layout* layout = nullptr;
  // Directory that relative file names in the scenario resolve against: the
  // scenario file's directory, or empty (the working directory) when the
  // scenario is not a file ("<demo>", "<stdin>").
  std::filesystem::path base_dir;
  // The scenario's job; null when describing parameters.
  const scenario::JobSpec* job = nullptr;

  // `name` resolved against base_dir (an absolute name is kept as is).
  std::filesystem::path resolve(const std::string& name) const {
    return (base_dir / name).lexically_normal();
  }
};

// The base directory for a scenario labelled `label` (see base_dir).
inline std::filesystem::path scenario_base_dir(const std::string& label) {
  if (label.empty() || label.front() == '<') return {};
  return std::filesystem::path(label).parent_path();
}

}  // namespace goodsim::models
