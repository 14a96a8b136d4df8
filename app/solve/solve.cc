#include "app/solve/solve.h"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <ostream>

#include "app/solve/solve_search.h"
#include "app/sweep/csv.h"
#include "sim/core/version.h"
#include "sim/output/atomic_file.h"
#include "sim/scenario/error.h"

namespace goodsim::app::solve {
namespace {

using Json = nlohmann::json;
using scenario::ScenarioError;
using sweep::format_number;

std::string shown(const Knob& k, double v) {
  std::string t = k.value_text(v);
  if (t.size() >= 2 && t.front() == '"') t = t.substr(1, t.size() - 2);
  return t;
}

std::string evaluations_csv(const Evaluator& ev) {
  std::string out = "order,value,seeds,requirement,metric,mean,sd,lower,upper,missing,verdict,feasible\n";
  for (const auto& [v, e] : ev.evaluations()) {
    for (size_t r = 0; r < e.judged.size(); ++r) {
      const Judgement& j = e.judged[r];
      const Requirement& req = ev.requirements()[r];
      out += sweep::csv_join({std::to_string(e.order), format_number(v), std::to_string(e.runs.size()),
                              req.text, std::string(sweep::kMetrics[req.metric].name),
                              format_number(j.estimate.mean), format_number(j.estimate.sd),
                              format_number(j.lower), format_number(j.upper),
                              std::to_string(j.missing), verdict_name(j.verdict),
                              e.feasible() ? "true" : "false"}) + "\n";
    }
  }
  return out;
}

Json point_json(const Evaluator& ev, std::optional<double> v, std::optional<size_t> objective) {
  if (!v) return nullptr;
  const Evaluation& e = ev.at(*v);
  Json reqs = Json::array();
  for (size_t r = 0; r < e.judged.size(); ++r) {
    const Judgement& j = e.judged[r];
    reqs.push_back({{"requirement", ev.requirements()[r].text}, {"mean", j.estimate.mean},
                    {"lower", std::isnan(j.lower) ? Json(nullptr) : Json(j.lower)},
                    {"upper", std::isnan(j.upper) ? Json(nullptr) : Json(j.upper)},
                    {"verdict", verdict_name(j.verdict)}});
  }
  Json out = {{"value", *v}, {"text", shown(ev.knob(), *v)}, {"seeds", e.runs.size()},
              {"feasible", e.feasible()}, {"requirements", reqs}};
  // The cost at this value, when the scenario prices its runs.
  std::vector<double> cost;
  for (const auto& run : e.runs) if (run[sweep::kCost]) cost.push_back(*run[sweep::kCost]);
  if (!cost.empty()) out["cost_mean"] = sweep::estimate(cost).mean;
  if (objective) out["objective_mean"] = metric_mean(e, *objective);
  return out;
}

std::string verdict_line(const Evaluator& ev, const SolveOptions& o, const SolveResult& r) {
  std::string reqs;
  for (const Requirement& q : ev.requirements()) reqs += (reqs.empty() ? "" : " and ") + q.text;
  const Knob& k = ev.knob();
  if (!r.answer) {
    return fmt::format("no value of {} in {}..{} meets {} for policy {} (at confidence {})", k.path,
                       shown(k, k.lo), shown(k, k.hi), reqs, ev.policy(), o.confidence);
  }
  const std::string caveat = r.monotone ? "" : "; the metric is not monotone in the knob: answer from a scan";
  if (o.objective) {
    const size_t m = *sweep::metric_index(*o.objective);
    return fmt::format("{} = {} has the {} mean {} ({:.6g}) of the values meeting {} for policy {} "
                       "(confidence {}, {} simulations){}", k.path, shown(k, *r.answer),
                       o.maximize ? "highest" : "lowest", *o.objective,
                       metric_mean(ev.at(*r.answer), m), reqs, ev.policy(), o.confidence,
                       r.simulations, caveat);
  }
  return fmt::format("{} {} = {} meets {} for policy {} (confidence {}, {} simulations){}",
                     o.maximize ? "largest" : "smallest", k.path, shown(k, *r.answer), reqs,
                     ev.policy(), o.confidence, r.simulations, caveat);
}

std::string point_line(const Evaluator& ev, const Evaluation& e) {
  std::string out = fmt::format("  {} = {:<12} {:>4} seeds", ev.knob().path, shown(ev.knob(), e.value), e.runs.size());
  for (size_t r = 0; r < e.judged.size(); ++r) {
    const Judgement& j = e.judged[r];
    out += fmt::format("  {} {:.6g} [{:.6g}, {:.6g}] {}", sweep::kMetrics[ev.requirements()[r].metric].name,
                       j.estimate.mean, j.lower, j.upper, verdict_name(j.verdict));
  }
  return out + "\n";
}

Json solve_json(const Evaluator& ev, const SolveOptions& o, const SolveResult& r, double seconds) {
  const Knob& k = ev.knob();
  const std::optional<size_t> objective =
      o.objective ? sweep::metric_index(*o.objective) : std::nullopt;
  Json reqs = Json::array();
  for (const Requirement& q : ev.requirements()) {
    reqs.push_back({{"text", q.text}, {"metric", sweep::kMetrics[q.metric].name},
                    {"op", op_text(q.op)}, {"threshold", q.threshold}});
  }
  // Integer knobs keep whole ends, so the range reads back as an integer range.
  const auto end = [&](double v) { return k.integer ? Json(static_cast<int64_t>(v)) : Json(v); };
  return {{"format", "goodsim-solve/1"},
          {"version", core::kVersion},
          {"goodsim_version", core::kVersion},
          {"scenario_file", o.scenario},
          {"sets", o.sets},
          {"policy", ev.policy()},
          {"knob", {{"path", k.path}, {"lo", end(k.lo)}, {"hi", end(k.hi)}, {"integer", k.integer},
                    {"unit", k.duration ? "s" : k.suffix}}},
          {"objective", o.maximize ? "maximize" : "minimize"},
          {"objective_metric", o.objective ? Json(*o.objective) : Json(nullptr)},
          {"requirements", reqs},
          {"confidence", o.confidence},
          {"answer", point_json(ev, r.answer, objective)},
          {"below", point_json(ev, r.below, objective)},
          {"above", point_json(ev, r.above, objective)},
          {"monotone", r.monotone},
          {"scanned", r.scanned},
          {"simulations", r.simulations},
          {"wall_s", seconds},
          {"verdict", verdict_line(ev, o, r)}};
}

void check_options(const SolveOptions& o) {
  if (o.requirements.empty()) throw ScenarioError("--require", "", "expected at least one requirement");
  if (!(o.confidence > 0.5 && o.confidence < 1))
    throw ScenarioError("--confidence", "", fmt::format("expected a level in (0.5, 1), got {}", o.confidence));
  if (o.seeds && *o.seeds < 2) throw ScenarioError("--seeds", "", "expected at least 2 seeds (a confidence bound needs two)");
  if (o.max_seeds < 2) throw ScenarioError("--max-seeds", "", "expected at least 2");
  if (o.objective && !sweep::metric_index(*o.objective)) {
    throw ScenarioError("--objective", *o.objective,
                        fmt::format("unknown metric; expected one of {}", sweep::metric_names()));
  }
}

}  // namespace

int solve_command(const SolveOptions& o, std::ostream& out, std::ostream& err) {
  const auto start = std::chrono::steady_clock::now();
  check_options(o);
  Knob knob = parse_find(o.find);
  std::vector<Requirement> reqs;
  for (const std::string& r : o.requirements) reqs.push_back(parse_require(r));
  const models::Registry registry = models::builtin_registry();
  const ScenarioSource src = load_scenario(o.scenario, o.sets, std::nullopt);
  Evaluator ev(src, o, std::move(knob), std::move(reqs), registry);
  const std::string name = src.doc.value("name", "scenario");
  const std::filesystem::path dir = o.out_dir ? *o.out_dir : "out/" + name + "-solve";
  auto log = [&](const Evaluation& e) { if (!o.quiet) err << point_line(ev, e); };
  const SolveResult r = o.objective ? optimise(ev, *sweep::metric_index(*o.objective), o.maximize, log)
                                    : search(ev, o.maximize, log);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::filesystem::create_directories(dir);
  output::write_file_atomically(dir / "evaluations.csv", evaluations_csv(ev));
  output::write_file_atomically(dir / "solve.json", solve_json(ev, o, r, seconds).dump(2) + "\n");
  if (!r.monotone) out << "note: the sampled values contradict monotonicity; scanned the range instead of bisecting\n";
  if (r.answer) {
    for (auto [label, v] : {std::pair{"below", r.below}, std::pair{"answer", r.answer}, std::pair{"above", r.above}}) {
      if (v) out << label << ":" << point_line(ev, ev.at(*v));
    }
  }
  out << verdict_line(ev, o, r) << "\n";
  out << fmt::format("wrote {0}/evaluations.csv, {0}/solve.json in {1:.3g} s; plot: python3 "
                     "analysis/plot_solve.py {0}\n", dir.string(), seconds);
  return r.answer ? 0 : 3;
}

}  // namespace goodsim::app::solve
