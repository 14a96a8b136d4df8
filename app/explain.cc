#include "app/explain.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <ostream>
#include <utility>
#include <vector>

#include "app/table.h"
#include "sim/scenario/error.h"
#include "sim/scenario/json_file.h"

namespace goodsim::app {
namespace {

using Json = nlohmann::json;

// Shares below this are left out of the lists ("dominant" categories, modes).
constexpr double kMinShare = 0.01;
// A fixed-size job short of a full set (spares exhausted) this share of the run
// gets a warning; from kNeverFullShare on it "never had a full set" (the first
// minutes, before enough slices failed, do not count).
constexpr double kShortShare = 0.5;
constexpr double kNeverFullShare = 0.99;

// Reads summary fields, naming the summary and the JSON path on a mismatch.
class Fields {
 public:
  Fields(const Json& j, std::string path, const std::string& source)
      : j_(j), path_(std::move(path)), source_(source) {}
  const Json& at(const std::string& key) const {
    if (!j_.is_object() || !j_.contains(key)) fail(key, "missing");
    return j_.at(key);
  }
  double number(const std::string& key) const {
    const Json& v = at(key);
    if (!v.is_number()) fail(key, "expected a number");
    return v.get<double>();
  }
  std::string text(const std::string& key) const {
    const Json& v = at(key);
    if (!v.is_string()) fail(key, "expected a string");
    return v.get<std::string>();
  }
  Fields child(const std::string& key) const {
    return Fields(at(key), path_.empty() ? key : path_ + "." + key, source_);
  }
  Fields element(size_t i) const { return Fields(j_.at(i), fmt::format("{}.{}", path_, i), source_); }
  const Json& json() const { return j_; }

 private:
  [[noreturn]] void fail(const std::string& key, const std::string& what) const {
    throw scenario::ScenarioError(source_, path_.empty() ? key : path_ + "." + key,
                                  what + " (not a summary.json of this goodsim version?)");
  }
  const Json& j_;
  std::string path_;
  const std::string& source_;
};

std::string percent(double share) { return fmt::format("{:.1f}%", 100 * share); }

// "a 62.1%, b 30.2%" for the entries of an object {name: value} whose share of
// `total` is at least kMinShare, largest first.
std::string shares(const Json& named, double total) {
  std::vector<std::pair<double, std::string>> v;
  for (auto it = named.begin(); it != named.end(); ++it) {
    const double share = total > 0 && it->is_number() ? it->get<double>() / total : 0;
    if (share >= kMinShare) v.emplace_back(share, it.key());
  }
  std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::string out;
  for (const auto& [share, name] : v) out += (out.empty() ? "" : ", ") + name + " " + percent(share);
  return out.empty() ? "none" : out;
}

double sum_values(const Json& named) {
  double total = 0;
  for (const Json& v : named) total += v.is_number() ? v.get<double>() : 0;
  return total;
}

// The warnings of one policy, each a full sentence.
std::vector<std::string> warnings(const Fields& p) {
  std::vector<std::string> out;
  const Fields d = p.child("diagnostics");
  const double end = d.number("end_s");
  const double exhausted = end > 0 ? d.number("spares_exhausted_s") / end : 0;
  if (p.text("type") == "data_parallel" && exhausted >= kShortShare) {
    out.push_back(fmt::format(
        "{}: more slices were down (mean {:.3g}) than there are spares ({}), so it waited "
        "for repairs instead of training; add spares, shorten repairs or use an elastic "
        "policy",
        exhausted >= kNeverFullShare
            ? std::string("the job never had a full set of slices")
            : "the job had no full set of slices for " + percent(exhausted) + " of the run",
        d.number("slices_down_mean"), d.number("spare_slices")));
  }
  // A job short of slices waits for repairs: its long outages are that, not slow recoveries.
  const double failures = p.number("failures"), outages = p.number("outages");
  if (out.empty() && failures > 0 && outages > 0) {
    const double pause = (p.number("downtime_s") - p.number("checkpoint_pause_s")) / outages;
    const double between = end / failures;
    if (pause > between) {
      out.push_back(fmt::format(
          "a recovery lasts longer (mean outage {}) than the mean time between failures ({}): "
          "failures arrive during recoveries, and goodput falls steeply with more chips or "
          "a higher failure rate",
          short_duration(pause), short_duration(between)));
    }
  }
  return out;
}

std::string badput_line(const Fields& p, double chips) {
  const double end = p.child("diagnostics").number("end_s");
  return "badput: " + shares(p.at("badput"), chips * end);
}

std::string checkpoint_line(const Fields& d) {
  const Json& rule = d.at("checkpoint_rule");
  if (!rule.is_string()) return "";
  const Json& interval = d.at("checkpoint_interval_s");
  std::string line = "checkpoints: " + rule.get<std::string>();
  if (interval.is_number()) line += ", interval " + short_duration(interval.get<double>());
  return line + fmt::format(", {} committed", d.number("checkpoints"));
}

std::string causes_line(const Fields& p) {
  std::string causes;
  const Json& c = p.at("failure_causes");
  for (auto it = c.begin(); it != c.end(); ++it) {
    causes += fmt::format("{}{} {}", causes.empty() ? "" : ", ", it.key(), it->dump());
  }
  return fmt::format("outages: {} (longest {}), {} checkpoint pauses; failures: {}{}",
                     p.number("outages"), short_duration(p.number("longest_outage_s")),
                     p.number("checkpoint_pauses"), p.number("failures"),
                     causes.empty() ? "" : " (" + causes + ")");
}

std::string learner_lines(const Fields& p, double end) {
  std::string out;
  const Json& learners = p.at("learners");
  for (size_t i = 0; i < learners.size(); ++i) {
    const Fields l = p.child("learners").element(i);
    out += fmt::format("    learner {}: goodput {:.4f}, {} rejoins; {}\n", l.number("index"),
                       l.number("goodput"), l.number("rejoins"),
                       shares(l.at("time_by_mode_s"), end));
  }
  return out;
}

std::string explain_policy(const Fields& p, double chips) {
  const Fields d = p.child("diagnostics");
  const double end = d.number("end_s");
  std::string out = fmt::format("{} ({}): goodput {:.4f}, ETTR {:.4f}, uptime {:.4f}\n",
                                p.text("name"), p.text("type"), p.number("goodput"),
                                p.number("ettr"), p.number("uptime"));
  out += "  " + badput_line(p, chips) + " of chips x time\n";
  out += fmt::format("  slices down: mean {:.3g}, max {} (of {} job slices + {} spares); "
                     "spares exhausted {} of the time\n",
                     d.number("slices_down_mean"), d.number("slices_down_max"),
                     d.number("job_slices"), d.number("spare_slices"),
                     percent(end > 0 ? d.number("spares_exhausted_s") / end : 0));
  if (const std::string c = checkpoint_line(d); !c.empty()) out += "  " + c + "\n";
  out += "  " + causes_line(p) + "\n";
  if (sum_values(d.at("time_by_state_s")) > 0) {
    out += "  time by state: " + shares(d.at("time_by_state_s"), end) + "\n";
  }
  if (d.at("mean_staleness").is_number()) {
    out += fmt::format("  mean staleness of merged contributions: {:.3g} inner steps\n",
                       d.number("mean_staleness"));
  }
  if (!p.at("learners").empty()) out += "  learners (goodput, time by mode):\n" + learner_lines(p, end);
  for (const std::string& w : warnings(p)) out += "  warning: " + w + "\n";
  return out;
}

}  // namespace

std::string explain_summary(const Json& summary, const std::string& source) {
  const Fields s(summary, "", source);
  const double chips = s.number("chips");
  std::string out = fmt::format("scenario \"{}\", seed {}, {} chips, horizon {}\n",
                                s.text("scenario"), s.number("seed"), chips,
                                short_duration(s.number("horizon_s")));
  const Json& policies = s.at("policies");
  for (size_t i = 0; i < policies.size(); ++i) {
    out += '\n';
    out += explain_policy(s.child("policies").element(i), chips);
  }
  return out;
}

std::string why_block(const Json& summary, const std::string& source) {
  const Fields s(summary, "", source);
  const double chips = s.number("chips");
  std::string out = "why:\n";
  const Json& policies = s.at("policies");
  for (size_t i = 0; i < policies.size(); ++i) {
    const Fields p = s.child("policies").element(i);
    out += fmt::format("  {}: {}\n", p.text("name"), badput_line(p, chips));
    for (const std::string& w : warnings(p)) out += "    warning: " + w + "\n";
  }
  return out + "  (goodsim explain DIR for slices down, checkpoints, outages by cause)\n";
}

namespace {

// Why a directory without summary.json cannot be explained, by the kind of directory it is.
std::string not_a_run_directory(const std::filesystem::path& dir) {
  const auto has = [&dir](const char* name) { return std::filesystem::exists(dir / name); };
  const std::string d = dir.string();
  std::string what;
  if (has("replications.csv")) {
    what = fmt::format("it holds replications (run --seeds); explain one of them: goodsim "
                       "explain {}/seed-<seed>", d);
  } else if (has("sweep.json") || has("results.csv")) {
    what = fmt::format("it is a sweep directory; explain one of its runs: repeat the row's "
                       "values and seed with goodsim run SCENARIO --set PATH=VALUE --seed SEED "
                       "--out RUN, then goodsim explain RUN (results.csv lists them)");
  } else if (has("calibrated.json")) {
    what = fmt::format("it is a calibrate directory; run the fitted scenario with goodsim run "
                       "{}/calibrated.json --out RUN, then goodsim explain RUN", d);
  } else {
    what = "expected a run directory (goodsim run --out DIR) or a summary.json file";
  }
  return "no summary.json here: " + what;
}

}  // namespace

int explain_command(const std::string& path, std::ostream& out) {
  const bool dir = std::filesystem::is_directory(path);
  if (dir && !std::filesystem::exists(std::filesystem::path(path) / "summary.json")) {
    throw scenario::ScenarioError(path, "", not_a_run_directory(path));
  }
  const std::filesystem::path p = dir ? std::filesystem::path(path) / "summary.json"
                                      : std::filesystem::path(path);
  out << explain_summary(scenario::load_json_file(p.string()), p.string());
  return 0;
}

}  // namespace goodsim::app
