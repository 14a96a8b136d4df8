#include "app/calibrate/calibrate_command.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <ostream>

#include "app/calibrate/choice.h"
#include "app/calibrate/fit.h"
#include "app/calibrate/objective.h"
#include "app/calibrate/structures.h"
#include "app/sweep/task_pool.h"
#include "app/table.h"
#include "sim/output/atomic_file.h"
#include "sim/scenario/error.h"

namespace goodsim::app::calibrate {
namespace {

std::vector<Knob> parse_knobs(const std::vector<std::string>& fits) {
  std::vector<Knob> knobs;
  for (const std::string& f : fits) {
    knobs.push_back(Knob::parse(f));
    for (size_t k = 0; k + 1 < knobs.size(); ++k) {
      if (knobs[k].path() == knobs.back().path()) {
        throw scenario::ScenarioError("--fit", knobs.back().path(), "fitted twice");
      }
    }
  }
  if (knobs.empty()) throw scenario::ScenarioError("--fit", "", "expected at least one knob");
  return knobs;
}

void check_counts(const CalibrateOptions& o, size_t knobs, size_t observations) {
  if (knobs > observations) {
    throw scenario::ScenarioError(
        o.target, "",
        fmt::format("{} knobs but only {} observations: a fit needs at least as many "
                    "observations as knobs",
                    knobs, observations));
  }
  if (o.seeds < 1 || o.seeds > 10000) {
    throw scenario::ScenarioError("--seeds", "",
                                  fmt::format("expected 1 to 10000, got {}", o.seeds));
  }
}

std::string knob_table(const std::vector<Knob>& knobs, const FitResult& r) {
  Table t({"knob", "value", "95% low", "95% high", "note"});
  for (size_t k = 0; k < r.knobs.size(); ++k) {
    const Knob& knob = knobs[k];
    const KnobEstimate& e = r.knobs[k];
    const bool edge = e.lo95 <= knob.lo() || e.hi95 >= knob.hi();
    t.add_row({knob.label(), knob.format(e.value), knob.format(e.lo95), knob.format(e.hi95),
               !e.identified ? "not identified"
               : edge        ? "interval cut by the range"
                             : ""});
  }
  return t.render();
}

std::string residual_table(const std::vector<Observation>& observations, const FitResult& r) {
  Table t({"observation", "policy", "metric", "observed", "simulated", "sigma", "residual"});
  for (size_t i = 0; i < observations.size(); ++i) {
    const Observation& o = observations[i];
    const double sim = r.at_best.mean[i];
    t.add_row({o.where, o.policy, o.metric, fmt::format("{:.6g}", o.value),
               fmt::format("{:.6g}", sim), fmt::format("{:.3g}", r.sigma[i]),
               fmt::format("{:+.2f}", (sim - o.value) / r.sigma[i])});
  }
  return t.render();
}

nlohmann::json report_json(const std::vector<Knob>& knob_list,
                           const std::vector<Observation>& observation_list, const FitResult& r,
                           size_t seeds, size_t simulations) {
  nlohmann::json knobs = nlohmann::json::array(), observations = nlohmann::json::array();
  for (size_t k = 0; k < r.knobs.size(); ++k) {
    const KnobEstimate& e = r.knobs[k];
    knobs.push_back({{"path", knob_list[k].path()},
                     {"value", e.value},
                     {"lo95", e.lo95},
                     {"hi95", e.hi95},
                     {"identified", e.identified},
                     {"log_scale", knob_list[k].log_scale()}});
  }
  for (size_t i = 0; i < observation_list.size(); ++i) {
    const Observation& o = observation_list[i];
    observations.push_back({{"where", o.where},
                            {"set", o.sets},
                            {"policy", o.policy},
                            {"metric", o.metric},
                            {"observed", o.value},
                            {"simulated", r.at_best.mean[i]},
                            {"simulated_se", r.at_best.se[i]},
                            {"sigma", r.sigma[i]},
                            {"residual", (r.at_best.mean[i] - o.value) / r.sigma[i]}});
  }
  return {
      {"knobs", knobs},       {"observations", observations}, {"chi2", r.chi2},
      {"seeds", seeds},       {"iterations", r.iterations},   {"simulations", simulations}};
}

std::vector<Choice> parse_choices(const CalibrateOptions& o) {
  std::vector<Choice> choices;
  size_t count = 1;
  for (const std::string& text : o.chooses) {
    choices.push_back(Choice::parse(text));
    for (size_t c = 0; c + 1 < choices.size(); ++c) {
      if (choices[c].name() == choices.back().name()) {
        throw scenario::ScenarioError("--choose", choices.back().name(), "chosen twice");
      }
    }
    count *= choices.back().size();
    if (count > o.max_structures) {
      throw scenario::ScenarioError(
          "--choose", "",
          fmt::format("more than --max-structures {} combinations of the choices", o.max_structures));
    }
  }
  if (!o.probes.empty() && choices.empty()) {
    throw scenario::ScenarioError("--probe", "", "needs --choose");
  }
  return choices;
}

struct ChooseInput {
  const ScenarioSource& src;
  const std::vector<Choice>& choices;
  const std::vector<Knob>& knobs;
  const std::vector<Observation>& observations;
  unsigned jobs;
  std::filesystem::path dir;
};

int choose_command(const CalibrateOptions& o, const ChooseInput& in, std::ostream& out,
                   std::ostream& progress) {
  const models::Registry registry = models::builtin_registry();
  for (const Choice& c : in.choices) c.check(in.src.doc, registry);
  const Selection sel = select_structure(
      in.src, in.choices, in.knobs, in.observations,
      {.seeds = o.seeds, .jobs = in.jobs, .fit = {.restarts = o.restarts}, .probes = o.probes},
      progress);
  const StructureFit& best = sel.fits[sel.ranking.front()];
  nlohmann::json report =
      report_json(in.knobs, in.observations, best.fit, o.seeds, sel.simulations);
  report["structures"] = structure_json(sel);
  std::filesystem::create_directories(in.dir);
  output::write_file_atomically(in.dir / "calibrated.json", best.document.dump(2) + "\n");
  output::write_file_atomically(in.dir / "calibration.json", report.dump(2) + "\n");
  out << structure_report(sel) << "\nbest structure: " << best.label << "\n"
      << knob_table(in.knobs, best.fit) << "\n"
      << residual_table(in.observations, best.fit) << "\n";
  out << fmt::format(
      "{} structures, {} simulations ({} seeds each)\nwrote {}, {}\n", sel.fits.size(),
      sel.simulations, o.seeds, (in.dir / "calibrated.json").string(),
      (in.dir / "calibration.json").string());
  return 0;
}

}  // namespace

int calibrate_command(const CalibrateOptions& o, std::ostream& out, std::ostream& err) {
  std::vector<Knob> knobs = parse_knobs(o.fits);
  std::vector<Choice> choices = parse_choices(o);
  std::vector<Observation> observations = read_targets(o.target);
  check_counts(o, knobs.size(), observations.size());
  ScenarioSource src = load_scenario(o.scenario, o.sets, std::nullopt);
  const std::string name =
      src.doc.is_object() && src.doc.value("name", nlohmann::json()).is_string()
          ? src.doc["name"].get<std::string>()
          : "scenario";
  const unsigned jobs = o.jobs > 0 ? o.jobs : sweep::TaskPool::default_threads();
  const std::filesystem::path dir = o.out_dir ? *o.out_dir : "out/" + name + "-calibrate";
  std::ofstream null_stream;
  std::ostream& progress = o.quiet ? null_stream : err;
  if (!choices.empty()) {
    return choose_command(o, {src, choices, knobs, observations, jobs, dir}, out, progress);
  }
  Objective obj(std::move(src), std::move(knobs), std::move(observations), o.seeds, jobs);
  const FitResult r = fit(obj, {.restarts = o.restarts}, progress);
  std::vector<double> values;
  for (const KnobEstimate& e : r.knobs) values.push_back(e.value);
  std::filesystem::create_directories(dir);
  output::write_file_atomically(dir / "calibrated.json",
                                obj.calibrated_document(values).dump(2) + "\n");
  output::write_file_atomically(
      dir / "calibration.json",
      report_json(obj.knobs(), obj.observations(), r, obj.seeds(), obj.simulations()).dump(2) +
          "\n");
  out << knob_table(obj.knobs(), r) << "\n" << residual_table(obj.observations(), r) << "\n";
  out << fmt::format(
      "chi2 {:.4g} over {} observations, {} iterations, {} simulations ({} seeds "
      "each)\nwrote {}, {}\n",
      r.chi2, obj.observations().size(), r.iterations, obj.simulations(), obj.seeds(),
      (dir / "calibrated.json").string(), (dir / "calibration.json").string());
  return 0;
}

}  // namespace goodsim::app::calibrate
