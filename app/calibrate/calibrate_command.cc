#include "app/calibrate/calibrate_command.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <filesystem>
#include <fstream>
#include <ostream>

#include "app/calibrate/fit.h"
#include "app/calibrate/objective.h"
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

std::string knob_table(const Objective& obj, const FitResult& r) {
  Table t({"knob", "value", "95% low", "95% high", "note"});
  for (size_t k = 0; k < r.knobs.size(); ++k) {
    const Knob& knob = obj.knobs()[k];
    const KnobEstimate& e = r.knobs[k];
    const bool edge = e.lo95 <= knob.lo() || e.hi95 >= knob.hi();
    t.add_row({knob.label(), knob.format(e.value), knob.format(e.lo95), knob.format(e.hi95),
               !e.identified ? "not identified"
               : edge        ? "interval cut by the range"
                             : ""});
  }
  return t.render();
}

std::string residual_table(const Objective& obj, const FitResult& r) {
  Table t({"observation", "policy", "metric", "observed", "simulated", "sigma", "residual"});
  for (size_t i = 0; i < obj.observations().size(); ++i) {
    const Observation& o = obj.observations()[i];
    const double sim = r.at_best.mean[i];
    t.add_row({o.where, o.policy, o.metric, fmt::format("{:.6g}", o.value),
               fmt::format("{:.6g}", sim), fmt::format("{:.3g}", r.sigma[i]),
               fmt::format("{:+.2f}", (sim - o.value) / r.sigma[i])});
  }
  return t.render();
}

nlohmann::json report_json(const Objective& obj, const FitResult& r) {
  nlohmann::json knobs = nlohmann::json::array(), observations = nlohmann::json::array();
  for (size_t k = 0; k < r.knobs.size(); ++k) {
    const KnobEstimate& e = r.knobs[k];
    knobs.push_back({{"path", obj.knobs()[k].path()},
                     {"value", e.value},
                     {"lo95", e.lo95},
                     {"hi95", e.hi95},
                     {"identified", e.identified},
                     {"log_scale", obj.knobs()[k].log_scale()}});
  }
  for (size_t i = 0; i < obj.observations().size(); ++i) {
    const Observation& o = obj.observations()[i];
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
      {"seeds", obj.seeds()}, {"iterations", r.iterations},   {"simulations", obj.simulations()}};
}

}  // namespace

void add_calibrate(CLI::App& app, CalibrateOptions& opt) {
  CLI::App* c = app.add_subcommand("calibrate",
                                   "Fit scenario knobs to observed metrics "
                                   "(weighted least squares, common random numbers)");
  c->add_option("scenario", opt.scenario, "Scenario JSON file")->required();
  c->add_option("--fit", opt.fits,
                "PATH=LO..HI: a knob and its range (numbers or durations; "
                "log scale when HI >= 10 LO > 0)")
      ->allow_extra_args(false)
      ->required();
  c->add_option("--target", opt.target,
                "Observations: CSV (set,policy,metric,value,"
                "uncertainty) or JSON")
      ->required();
  c->add_option("--set", opt.sets, "Override a scenario key first (as in run)")
      ->allow_extra_args(false);
  c->add_option("--seeds", opt.seeds,
                "Seeds per evaluation, the same for every candidate "
                "(default 4)");
  c->add_option("--jobs,-j", opt.jobs, "Runs in parallel (default: number of cores)")
      ->check(CLI::Range(1u, sweep::kMaxJobs));
  c->add_option("--restarts", opt.restarts, "Starts after the range's centre (default 2)");
  c->add_option("--out", opt.out_dir, "Output directory (default: out/<scenario name>-calibrate)");
  c->add_flag("--quiet,-q", opt.quiet, "No progress lines");
}

int calibrate_command(const CalibrateOptions& o, std::ostream& out, std::ostream& err) {
  std::vector<Knob> knobs = parse_knobs(o.fits);
  std::vector<Observation> observations = read_targets(o.target);
  check_counts(o, knobs.size(), observations.size());
  ScenarioSource src = load_scenario(o.scenario, o.sets, std::nullopt);
  const std::string name =
      src.doc.is_object() && src.doc.value("name", nlohmann::json()).is_string()
          ? src.doc["name"].get<std::string>()
          : "scenario";
  const unsigned jobs = o.jobs > 0 ? o.jobs : sweep::TaskPool::default_threads();
  Objective obj(std::move(src), std::move(knobs), std::move(observations), o.seeds, jobs);
  const std::filesystem::path dir = o.out_dir ? *o.out_dir : "out/" + name + "-calibrate";
  std::ofstream null_stream;
  const FitResult r = fit(obj, {.restarts = o.restarts}, o.quiet ? null_stream : err);
  std::vector<double> values;
  for (const KnobEstimate& e : r.knobs) values.push_back(e.value);
  std::filesystem::create_directories(dir);
  output::write_file_atomically(dir / "calibrated.json",
                                obj.calibrated_document(values).dump(2) + "\n");
  output::write_file_atomically(dir / "calibration.json", report_json(obj, r).dump(2) + "\n");
  out << knob_table(obj, r) << "\n" << residual_table(obj, r) << "\n";
  out << fmt::format(
      "chi2 {:.4g} over {} observations, {} iterations, {} simulations ({} seeds "
      "each)\nwrote {}, {}\n",
      r.chi2, obj.observations().size(), r.iterations, obj.simulations(), obj.seeds(),
      (dir / "calibrated.json").string(), (dir / "calibration.json").string());
  return 0;
}

}  // namespace goodsim::app::calibrate
