#include "app/calibrate/structures.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <filesystem>
#include <memory>
#include <mutex>
#include <ostream>
#include <sstream>
#include <streambuf>
#include <thread>

#include "app/calibrate/objective.h"
#include "app/calibrate/shared_runs.h"
#include "app/table.h"

namespace goodsim::app::calibrate {
namespace {

// Forwards whole lines to a shared stream under a mutex, "calibrate: " becoming
// "calibrate: structure 2/6 (label): ", so the fits' progress lines do not mix.
class PrefixedLines : public std::streambuf {
 public:
  PrefixedLines(std::ostream& out, std::mutex& mutex, std::string prefix)
      : out_(out), mutex_(mutex), prefix_(std::move(prefix)) {}

 protected:
  int overflow(int c) override {
    if (c == traits_type::eof()) return 0;
    if (c != '\n') {
      line_.push_back(static_cast<char>(c));
      return c;
    }
    static constexpr std::string_view kHead = "calibrate: ";
    if (line_.rfind(kHead, 0) == 0) line_.erase(0, kHead.size());
    const std::lock_guard lock(mutex_);
    out_ << "calibrate: " << prefix_ << line_ << "\n" << std::flush;
    line_.clear();
    return c;
  }

 private:
  std::ostream& out_;
  std::mutex& mutex_;
  std::string prefix_;
  std::string line_;
};

// "name=value" per choice: a fragment by its file stem, keys moving together by
// the first path and their count.
std::string structure_label(const std::vector<Choice>& choices, const std::vector<size_t>& alt) {
  std::string out;
  for (size_t c = 0; c < choices.size(); ++c) {
    const Choice& ch = choices[c];
    const std::string name =
        ch.paths().size() > 1
            ? fmt::format("{} (+{} more)", ch.paths().front(), ch.paths().size() - 1)
            : ch.name();
    std::string value = ch.alternatives()[alt[c]].label;
    if (ch.fragments()) value = "@" + std::filesystem::path(value.substr(1)).stem().string();
    out += fmt::format("{}{}={}", c ? ", " : "", name, value);
  }
  return out;
}

std::vector<Observation> probe_observations(const std::vector<std::string>& probes,
                                            const std::vector<Observation>& targets) {
  std::vector<Observation> out;
  for (const std::string& p : probes) {
    std::vector<std::pair<std::string, std::string>> seen;
    for (const Observation& t : targets) {
      const std::pair<std::string, std::string> key{t.policy, t.metric};
      if (std::find(seen.begin(), seen.end(), key) != seen.end()) continue;
      seen.push_back(key);
      out.push_back({split_sets(p), t.policy, t.metric, 0, 0,
                     fmt::format("{} {} at {}", t.policy, t.metric, p)});
    }
  }
  return out;
}

// Fits every objective on its own thread; rethrows the first error by index.
void fit_all(std::vector<std::unique_ptr<Objective>>& objectives, std::vector<StructureFit>& fits,
             const SelectOptions& o, std::ostream& progress) {
  std::mutex mutex;
  std::vector<std::exception_ptr> errors(fits.size());
  {
    std::vector<std::jthread> threads;
    for (size_t s = 0; s < fits.size(); ++s) {
      threads.emplace_back([&, s] {
        PrefixedLines buf(progress, mutex,
                          fmt::format("structure {}/{} ({}): ", s + 1, fits.size(), fits[s].label));
        std::ostream lines(&buf);
        try {
          fits[s].fit = fit(*objectives[s], o.fit, lines);
          fits[s].simulations = objectives[s]->simulations();
          lines << fmt::format("calibrate: done, chi2 {:.4g}, {} knobs moved, {} simulations\n",
                               fits[s].fit.chi2, fits[s].fit.rank, fits[s].simulations);
        } catch (...) {
          errors[s] = std::current_exception();
        }
      });
    }
  }
  for (const std::exception_ptr& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}

void rank_structures(Selection& sel) {
  for (StructureFit& f : sel.fits) f.criterion = information_criterion(f.fit.chi2, f.fit.rank);
  sel.ranking.resize(sel.fits.size());
  for (size_t i = 0; i < sel.ranking.size(); ++i) sel.ranking[i] = i;
  std::stable_sort(sel.ranking.begin(), sel.ranking.end(), [&](size_t a, size_t b) {
    return sel.fits[a].criterion < sel.fits[b].criterion;
  });
  const double best = sel.fits[sel.ranking.front()].criterion;
  double total = 0;
  for (StructureFit& f : sel.fits) {
    f.delta = f.criterion - best;
    f.weight = std::exp(-f.delta / 2);
    total += f.weight;
  }
  for (StructureFit& f : sel.fits) f.weight /= total;
}

// The smallest fit sigma of a target with the probe's policy and metric (0: none).
double reference_sigma(const Selection& sel, const StructureFit& best, const Observation& probe) {
  double out = INFINITY;
  for (size_t i = 0; i < sel.observations.size(); ++i) {
    const Observation& t = sel.observations[i];
    if (t.policy == probe.policy && t.metric == probe.metric) out = std::min(out, best.fit.sigma[i]);
  }
  return std::isfinite(out) ? out : 0.0;
}

Separation separate(const Selection& sel, size_t other) {
  const StructureFit& a = sel.fits[sel.ranking.front()];
  const StructureFit& b = sel.fits[other];
  Separation s{other, "", 0, {}};
  for (size_t i = 0; i < sel.observations.size(); ++i) {
    const double d = std::abs(a.fit.at_best.mean[i] - b.fit.at_best.mean[i]) / a.fit.sigma[i];
    if (s.target_where.empty() || d > s.target_sigmas) s = {other, sel.observations[i].where, d, {}};
  }
  for (size_t i = 0; i < sel.probes.size(); ++i) {
    const double pa = a.probes.mean[i], pb = b.probes.mean[i];
    const double sigma = reference_sigma(sel, a, sel.probes[i]);
    const double floor = 1e-3 * std::max(std::abs(pa), 1e-9);
    const double threshold =
        2 * std::max(std::sqrt(sigma * sigma + a.probes.se[i] * a.probes.se[i] +
                               b.probes.se[i] * b.probes.se[i]),
                     floor);
    if (std::abs(pa - pb) > threshold) s.probes.push_back({sel.probes[i].where, pa, pb, threshold});
  }
  return s;
}

}  // namespace

size_t structure_count(const std::vector<Choice>& choices) {
  size_t n = 1;
  for (const Choice& c : choices) n *= c.size();
  return n;
}

std::vector<size_t> structure_alternatives(size_t i, const std::vector<Choice>& choices) {
  std::vector<size_t> alt(choices.size());
  for (size_t c = choices.size(); c-- > 0;) {
    alt[c] = i % choices[c].size();
    i /= choices[c].size();
  }
  return alt;
}

double information_criterion(double chi2, size_t knobs) {
  return chi2 + 2.0 * static_cast<double>(knobs);
}

Selection select_structure(const ScenarioSource& base, const std::vector<Choice>& choices,
                           const std::vector<Knob>& knobs,
                           const std::vector<Observation>& observations,
                           const SelectOptions& o, std::ostream& progress) {
  Selection sel{knobs, observations, probe_observations(o.probes, observations), {}, {}, {}, 0};
  SharedRuns runs(o.jobs);
  std::vector<std::unique_ptr<Objective>> objectives;
  std::vector<ScenarioSource> sources;
  for (size_t s = 0; s < structure_count(choices); ++s) {
    StructureFit f;
    f.alternatives = structure_alternatives(s, choices);
    f.label = structure_label(choices, f.alternatives);
    ScenarioSource src = base;
    for (size_t c = 0; c < choices.size(); ++c) choices[c].apply(src.doc, f.alternatives[c]);
    objectives.push_back(
        std::make_unique<Objective>(src, knobs, observations, o.seeds, o.jobs, &runs));
    sources.push_back(std::move(src));
    sel.fits.push_back(std::move(f));
  }
  fit_all(objectives, sel.fits, o, progress);
  rank_structures(sel);
  for (size_t s = 0; s < sel.fits.size(); ++s) {
    StructureFit& f = sel.fits[s];
    std::vector<double> values;
    for (const KnobEstimate& e : f.fit.knobs) values.push_back(e.value);
    f.document = objectives[s]->calibrated_document(values);
    sel.simulations += f.simulations;
    const bool needed = s == sel.ranking.front() || f.delta < kSeparation;
    if (!sel.probes.empty() && needed) {
      Objective probe(sources[s], knobs, sel.probes, o.seeds, o.jobs, &runs);
      f.probes = probe.evaluate({f.fit.z}).front();
      sel.simulations += probe.simulations();
    }
  }
  for (size_t r = 1; r < sel.ranking.size(); ++r) {
    if (sel.fits[sel.ranking[r]].delta < kSeparation) sel.tied.push_back(separate(sel, sel.ranking[r]));
  }
  return sel;
}

std::string structure_report(const Selection& sel) {
  Table t({"rank", "structure", "knobs (value)", "chi2", "k", "IC", "delta IC", "weight"});
  for (size_t r = 0; r < sel.ranking.size(); ++r) {
    const StructureFit& f = sel.fits[sel.ranking[r]];
    std::string values;
    for (size_t k = 0; k < sel.knobs.size(); ++k) {
      values += (k ? ", " : "") + sel.knobs[k].format(f.fit.knobs[k].value);
    }
    t.add_row({std::to_string(r + 1), f.label, values, fmt::format("{:.4g}", f.fit.chi2),
               std::to_string(f.fit.rank), fmt::format("{:.4g}", f.criterion),
               fmt::format("{:.3g}", f.delta), fmt::format("{:.3f}", f.weight)});
  }
  std::string out = t.render();
  const StructureFit& best = sel.fits[sel.ranking.front()];
  if (sel.tied.empty()) {
    out += sel.ranking.size() > 1
               ? fmt::format("chosen: {}, ahead of {} by delta IC {:.3g} (weight {:.3f})\n",
                             best.label, sel.fits[sel.ranking[1]].label,
                             sel.fits[sel.ranking[1]].delta, best.weight)
               : fmt::format("chosen: {} (the only structure)\n", best.label);
    return out;
  }
  out += fmt::format("not separable: {} and the structures below fit within noise (delta IC < {:g}); "
                     "written: {}\n",
                     best.label, kSeparation, best.label);
  for (const Separation& s : sel.tied) {
    out += fmt::format("  {} (delta IC {:.3g}): at the targets they differ most at {} ({:.2f} sigma)",
                       sel.fits[s.other].label, sel.fits[s.other].delta, s.target_where,
                       s.target_sigmas);
    if (sel.probes.empty()) {
      out += "; --probe SET simulates them elsewhere\n";
    } else if (s.probes.empty()) {
      out += "; no probe separates them\n";
    } else {
      out += "; separated by:\n";
      for (const ProbeGap& g : s.probes) {
        out += fmt::format("    {}: {:.4g} vs {:.4g} (more than {:.3g} apart)\n", g.where, g.best,
                           g.other, g.threshold);
      }
    }
  }
  return out;
}

nlohmann::json structure_json(const Selection& sel) {
  nlohmann::json rows = nlohmann::json::array();
  for (size_t r = 0; r < sel.ranking.size(); ++r) {
    const StructureFit& f = sel.fits[sel.ranking[r]];
    nlohmann::json knobs = nlohmann::json::array();
    for (size_t k = 0; k < sel.knobs.size(); ++k) {
      const KnobEstimate& e = f.fit.knobs[k];
      knobs.push_back({{"path", sel.knobs[k].path()}, {"value", e.value}, {"lo95", e.lo95},
                       {"hi95", e.hi95}, {"identified", e.identified}});
    }
    rows.push_back({{"structure", f.label},   {"knobs", knobs},      {"chi2", f.fit.chi2},
                    {"k", f.fit.rank},        {"ic", f.criterion},   {"delta_ic", f.delta},
                    {"weight", f.weight},     {"simulations", f.simulations}});
  }
  nlohmann::json tied = nlohmann::json::array();
  for (const Separation& s : sel.tied) {
    nlohmann::json probes = nlohmann::json::array();
    for (const ProbeGap& g : s.probes) {
      probes.push_back({{"where", g.where}, {"best", g.best}, {"other", g.other},
                        {"threshold", g.threshold}});
    }
    tied.push_back({{"structure", sel.fits[s.other].label}, {"target", s.target_where},
                    {"target_sigmas", s.target_sigmas}, {"separating_probes", probes}});
  }
  return {{"ranking", rows},
          {"chosen", sel.fits[sel.ranking.front()].label},
          {"separable", sel.tied.empty()},
          {"tied", tied},
          {"criterion", "chi2 + 2 k (k: rank of the Jacobian)"}};
}

}  // namespace goodsim::app::calibrate
