#include "models/failure/cause_mix.h"

#include <cmath>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

#include "sim/scenario/error.h"
#include "sim/scenario/units.h"

namespace goodsim::models::failure {
namespace {

using nlohmann::json;

struct Preset {
  std::string_view name;
  std::vector<std::pair<std::string, double>> causes;
};

// Llama 3 405B pre-training, 419 unexpected interruptions by count (Meta,
// "The Llama 3 Herd of Models", 2024).
const std::vector<Preset>& presets() {
  static const std::vector<Preset> kPresets = {
      {"llama3",
       {{"gpu", 268}, {"software", 56}, {"network", 35}, {"host_maintenance", 32},
        {"host_hardware", 21}, {"nccl_watchdog", 7}}},
      {"llama3_detailed",
       {{"faulty_gpu", 148}, {"gpu_hbm", 72}, {"software", 56}, {"network", 35},
        {"host_maintenance", 32}, {"host_hardware", 21}, {"gpu_sram", 19},
        {"gpu_system_processor", 17}, {"nccl_watchdog", 7}, {"gpu_thermal", 6},
        {"silent_data_corruption", 6}}},
  };
  return kPresets;
}

bool valid_name(std::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  for (const char ch : name) {
    const bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                    (ch >= '0' && ch <= '9') || ch == '_' || ch == '-' || ch == '.';
    if (!ok) return false;
  }
  return true;
}

CauseMix read_preset(scenario::ObjectReader& r, std::string_view key, const std::string& name) {
  if (auto mix = CauseMix::preset(name)) return *mix;
  const auto names = CauseMix::preset_names();
  const auto match = scenario::closest_match(name, names);
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "\"" : ", \"") + n + "\"";
  r.fail(key, fmt::format("unknown cause preset \"{}\"; {}(for a single cause write "
                          "{{\"{}\": 1}})",
                          name, match ? fmt::format("did you mean \"{}\"? ", *match)
                                      : "presets are " + list + " ",
                          name));
}

double read_weight(scenario::ObjectReader& r, const std::string& path, const json& value) {
  double w = 0;
  try {
    w = scenario::fraction_from_json(value);
  } catch (const std::invalid_argument& e) {
    r.fail(path, e.what());
  }
  if (!std::isfinite(w) || w < 0) {
    r.fail(path, "expected a weight >= 0, got " + scenario::describe_value(value));
  }
  return w;
}

}  // namespace

CauseMix::CauseMix(std::vector<std::string> names, const std::vector<double>& weights)
    : names_(std::move(names)), categorical_(weights) {}

CauseMix CauseMix::single(std::string name) {
  if (!valid_name(name)) throw std::invalid_argument("invalid cause name \"" + name + "\"");
  return CauseMix({std::move(name)}, {1.0});
}

std::optional<CauseMix> CauseMix::preset(std::string_view name) {
  for (const Preset& p : presets()) {
    if (p.name != name) continue;
    std::vector<std::string> names;
    std::vector<double> weights;
    for (const auto& [cause, count] : p.causes) {
      names.push_back(cause);
      weights.push_back(count);
    }
    return CauseMix(std::move(names), weights);
  }
  return std::nullopt;
}

std::vector<std::string> CauseMix::preset_names() {
  std::vector<std::string> out;
  for (const Preset& p : presets()) out.emplace_back(p.name);
  return out;
}

CauseMix CauseMix::from_json(scenario::ObjectReader& r, std::string_view key,
                             std::string_view default_cause) {
  const std::string help = fmt::format(
      "root causes: {{\"cause\": weight, ...}} or a preset (\"llama3\"); default: every "
      "failure \"{}\"",
      default_cause);
  const json& v = r.raw(key, help);
  if (r.describing() || v.is_null()) return single(std::string(default_cause));
  if (v.is_string()) return read_preset(r, key, v.get<std::string>());
  if (!v.is_object() || v.empty()) {
    r.fail(key, "expected a preset name or a non-empty object {\"cause\": weight, ...}, got " +
                    scenario::describe_value(v));
  }
  std::vector<std::string> names;
  std::vector<double> weights;
  double total = 0;
  for (auto it = v.begin(); it != v.end(); ++it) {
    const std::string path = std::string(key) + "." + it.key();
    if (!valid_name(it.key())) {
      r.fail(path, "a cause name must be 1-64 letters, digits, '_', '-' or '.'");
    }
    names.push_back(it.key());
    weights.push_back(read_weight(r, path, it.value()));
    total += weights.back();
  }
  if (!(total > 0) || !std::isfinite(total)) {
    r.fail(key, "at least one weight must be > 0 (and their sum finite)");
  }
  return CauseMix(std::move(names), weights);
}

CauseSampler::CauseSampler(const CauseMix& mix, cluster::ClusterState& state) : mix_(mix) {
  for (size_t i = 0; i < mix.size(); ++i) ids_.push_back(state.intern_cause(mix.name(i)));
}

}  // namespace goodsim::models::failure
