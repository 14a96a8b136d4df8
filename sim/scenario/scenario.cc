#include "sim/scenario/scenario.h"

#include <fmt/format.h>

#include <cmath>
#include <set>

#include "sim/scenario/error.h"
#include "sim/scenario/reader.h"

namespace goodsim::scenario {
namespace {

constexpr int64_t kMaxUnitSize = 1'000'000;
constexpr int64_t kMaxLayers = 100'000;

void check_name(ObjectReader& r, const std::string& key, const std::string& name) {
  const bool ok = !name.empty() && name.find_first_not_of(
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == std::string::npos;
  if (!ok) r.fail(key, "expected a non-empty name of letters, digits, '.', '_' or '-', got \"" + name + "\"");
}

std::vector<SiteSpec> parse_sites(ObjectReader& c, uint64_t total_slices) {
  std::vector<SiteSpec> sites;
  std::set<std::string> names;
  size_t with_slices = 0;
  for (ObjectReader& s : c.optional_object_list("sites", "datacenters; default one site")) {
    SiteSpec site;
    site.name = s.string("name", "site name, used by links and placement");
    // A describing reader (docs, or a missing cluster) reads placeholders: no checks.
    if (!s.describing()) check_name(s, "name", site.name);
    if (!names.insert(site.name).second && !s.describing()) {
      s.fail("name", "duplicate site name \"" + site.name + "\"");
    }
    site.slices = static_cast<uint32_t>(
        s.count("slices", 0, "slices in this site; 0 or absent: an even share", 0, UINT32_MAX));
    with_slices += site.slices > 0 ? 1 : 0;
    sites.push_back(site);
  }
  if (sites.empty()) sites.push_back({"site0", 0});
  if (sites.size() > total_slices && !c.describing()) {
    c.fail("sites", fmt::format("{} sites but only {} slices", sites.size(), total_slices));
  }
  if (with_slices == 0) {
    for (size_t i = 0; i < sites.size(); ++i) {
      sites[i].slices = static_cast<uint32_t>(total_slices / sites.size() +
                                              (i < total_slices % sites.size() ? 1 : 0));
    }
  } else {
    uint64_t sum = 0;
    for (const SiteSpec& s : sites) sum += s.slices;
    if ((with_slices != sites.size() || sum != total_slices) && !c.describing()) {
      c.fail("sites", fmt::format("give \"slices\" for every site or for none; when given they "
                                  "must sum to the cluster's {} slices (got {})", total_slices, sum));
    }
  }
  return sites;
}

std::vector<LinkSpec> parse_links(ObjectReader& c, const std::vector<SiteSpec>& sites) {
  std::vector<std::string> names;
  for (const SiteSpec& s : sites) names.push_back(s.name);
  std::vector<LinkSpec> links;
  for (ObjectReader& l : c.optional_object_list("links", "WAN links between sites")) {
    LinkSpec link;
    link.from = l.choice("from", names, "site at one end");
    link.to = l.choice("to", names, "site at the other end");
    if (link.from == link.to && !l.describing()) l.fail("to", "a link needs two different sites");
    link.bandwidth_bps = l.bandwidth_bps("bandwidth", "link bandwidth, e.g. \"5Gbps\"", 1.0);
    link.latency = l.duration("latency", core::Duration::zero(), "one-way latency");
    links.push_back(link);
  }
  return links;
}

// Every site must reach every other over the links: a multi-site job whose
// sites cannot talk is a configuration mistake, not a scenario.
void check_connected(ObjectReader& c, const std::vector<SiteSpec>& sites,
                     const std::vector<LinkSpec>& links) {
  std::vector<size_t> root(sites.size());
  for (size_t i = 0; i < root.size(); ++i) root[i] = i;
  auto index = [&sites](const std::string& name) {
    size_t i = 0;
    while (sites[i].name != name) ++i;
    return i;
  };
  auto find = [&root](size_t i) {
    while (root[i] != i) i = root[i] = root[root[i]];
    return i;
  };
  for (const LinkSpec& l : links) root[find(index(l.from))] = find(index(l.to));
  for (size_t i = 1; i < sites.size(); ++i) {
    if (find(i) != find(0)) {
      c.fail("links", fmt::format("sites \"{}\" and \"{}\" are not connected: add links so "
                                  "every site can reach every other", sites[0].name, sites[i].name));
    }
  }
}

ClusterSpec parse_cluster(ObjectReader& c) {
  ClusterSpec spec;
  const int64_t chips = c.count("chips", "accelerators in the cluster, e.g. 1.2e6", 1);
  if (static_cast<uint64_t>(chips) > kMaxChips) {
    c.fail("chips", fmt::format("{} chips is more than goodsim simulates (at most 1e9)", chips));
  }
  spec.chips = static_cast<uint64_t>(chips);
  spec.chips_per_host = static_cast<uint32_t>(
      c.count("chips_per_host", 4, "accelerators per host", 1, kMaxUnitSize));
  spec.hosts_per_slice = static_cast<uint32_t>(
      c.count("hosts_per_slice", 64, "hosts per slice (the SPMD unit)", 1, kMaxUnitSize));
  const uint64_t per_slice = uint64_t{spec.chips_per_host} * spec.hosts_per_slice;
  if (!c.describing() && spec.chips % per_slice != 0) {
    const uint64_t below = spec.chips / per_slice * per_slice;
    const std::string nearest = below == 0 ? fmt::format("{}", per_slice)
                                           : fmt::format("{} or {}", below, below + per_slice);
    c.fail("chips", fmt::format("{} chips is not a whole number of slices of {} chips "
                                "(chips_per_host x hosts_per_slice); nearest valid: {}",
                                spec.chips, per_slice, nearest));
  }
  const uint64_t slices = spec.chips / per_slice;
  spec.sites = parse_sites(c, slices);
  spec.links = parse_links(c, spec.sites);
  if (!c.describing()) check_connected(c, spec.sites, spec.links);
  spec.spare_slices = static_cast<uint32_t>(c.count(
      "spare_slices", 0, "slices held back as spares (the last slices of the cluster)", 0,
      static_cast<int64_t>(slices) - 1));
  return spec;
}

constexpr double kMaxJobScale = 1e15;  // job.params, job.tokens_per_step

// job.layers and job.layer_params: the per-layer parameter counts of the
// layer-level step model, uniform (params / layers) unless listed.
std::vector<double> parse_layers(ObjectReader& j, double params) {
  const auto layers = j.optional_count("layers", "layers of the model: turns on the layer-level "
                                       "step model (per-layer gradient reduces overlap the "
                                       "backward pass)", 1, kMaxLayers);
  const nlohmann::json& listed = j.raw("layer_params", "parameters of each layer, input to output (with "
                             "\"layers\"; default: params / layers each)");
  if (j.describing()) return {};
  if (!layers) {
    if (!listed.is_null()) j.fail("layer_params", "needs \"layers\"");
    return {};
  }
  const auto n = static_cast<size_t>(*layers);
  if (listed.is_null()) return std::vector<double>(n, params / static_cast<double>(n));
  if (!listed.is_array() || listed.size() != n) {
    j.fail("layer_params", fmt::format("expected a list of {} positive numbers (one per layer)", n));
  }
  std::vector<double> out;
  for (const nlohmann::json& v : listed) {
    if (!v.is_number() || !(v.get<double>() > 0) || !std::isfinite(v.get<double>())) {
      j.fail("layer_params", fmt::format("expected a list of {} positive numbers (one per layer), "
                                         "got {}", n, v.dump()));
    }
    out.push_back(v.get<double>());
  }
  return out;
}

JobSpec parse_job(ObjectReader& j, const ClusterSpec& cluster) {
  JobSpec job;
  // At most 1e15 each (far beyond any model or batch): token counts over the longest
  // horizon at the shortest step then stay finite, and so does every loss model.
  job.params = j.unit("params").number("params", "model parameters, e.g. 7e10", 1.0, kMaxJobScale);
  job.tokens_per_step =
      j.unit("tokens").number("tokens_per_step", "global batch in tokens per step", 1.0, kMaxJobScale);
  const auto step = j.optional_duration("step_time", "time of one training step on the whole "
                                        "cluster", core::Duration::nanos(1));
  const auto peak = j.optional_flops("peak_flops", "peak FLOP/s of one chip, e.g. \"459TFLOPS\"", 1.0);
  const double mfu = j.fraction("mfu", 0.4, "model FLOPs utilisation (with peak_flops)", 1e-6, 1.0);
  if (!j.describing() && step.has_value() == peak.has_value()) {
    j.fail("", "give exactly one of \"step_time\" or \"peak_flops\"");
  }
  if (step) {
    job.step_time = *step;
  } else if (peak) {
    const double per_slice = static_cast<double>(cluster.chips_per_host) * cluster.hosts_per_slice;
    const double job_chips = static_cast<double>(cluster.chips) - cluster.spare_slices * per_slice;
    const double seconds = 6.0 * job.params * job.tokens_per_step / (job_chips * *peak * mfu);
    job.step_time = core::Duration::from_seconds(seconds);
    if (job.step_time <= core::Duration::zero() || job.step_time > core::Duration::days(365)) {
      j.fail("peak_flops", fmt::format("derived step time of {} s is out of range", seconds));
    }
  }
  job.target_tokens = j.unit("tokens").optional_number("target_tokens", "token budget; time_to_target_s is "
                                        "when it is reached", 1.0);
  job.target_loss = j.unit("nats").optional_number("target_loss", "target loss (needs a \"loss\" model); "
                                      "time_to_target_s is when it is reached", 0.0);
  if (job.target_tokens && job.target_loss) {
    j.fail("target_loss", "give \"target_tokens\" or \"target_loss\", not both");
  }
  // Defaults that depend on other keys are documented in the help, not as a value.
  job.gradient_bytes = j.optional_bytes("gradient_bytes", "bytes of one gradient all-reduce "
                                        "(default: 2 x params, bf16)")
                           .value_or(2.0 * job.params);
  job.intra_site_bps = j.bandwidth_bps("intra_site_bandwidth", 800e9,
                                       "per-slice bandwidth of all-reduces inside a site", 1.0);
  job.comm_overlap = j.fraction("comm_overlap", 1.0, "share of the intra-site all-reduce "
                                "hidden behind compute (1: step_time already includes it)");
  job.layer_params = parse_layers(j, job.params);
  return job;
}

// The raw entries of a list of objects (`what` says what each must be).
std::vector<ModelEntry> model_entries(ObjectReader& r, const char* key, bool required,
                                      const std::string& file,
                                      const char* what = "objects with \"type\"") {
  const nlohmann::json& list = r.raw(key, fmt::format("list of {}", what));
  std::vector<ModelEntry> out;
  if (list.is_null() && !required) return out;
  if (!list.is_array() || (required && list.empty())) {
    throw ScenarioError(file, key, fmt::format("expected a {}list of {}, got {}",
                                               required ? "non-empty " : "", what,
                                               describe_value(list)));
  }
  for (size_t i = 0; i < list.size(); ++i) out.push_back({join_path(key, std::to_string(i)), list[i]});
  return out;
}

OutputSpec parse_outputs(ObjectReader& r, core::Duration horizon) {
  OutputSpec out;
  out.sample_interval = std::max(horizon / 200, core::Duration::nanos(1));
  if (auto o = r.optional_object("outputs", "what to write besides summary.json")) {
    out.sample_interval = o->optional_duration("sample_interval", "time between "
                                               "timeseries.csv rows (default horizon/200)",
                                               std::max(horizon / 1'000'000,
                                                        core::Duration::nanos(1)))
                              .value_or(out.sample_interval);
    out.events = o->boolean("events", false, "also write events.jsonl");
  }
  return out;
}


// Reads the top level of a scenario through `r` (also in describe mode).
Scenario read_scenario(ObjectReader& r, const std::string& file, ErrorList& errors) {
  Scenario s;
  s.file = std::make_shared<const std::string>(file);
  r.log_defaults_to(s.defaults);
  errors.attempt("name", [&] {
    s.name = r.string("name", "scenario name; names the default output directory");
    check_name(r, "name", s.name);
  });
  s.description = r.string("description", "", "free text: assumptions, sources");
  s.seed = static_cast<uint64_t>(r.count("seed", 1, "seed of every random stream", 0,
                                              static_cast<int64_t>(kMaxSeed)));
  s.horizon = r.duration("horizon", "simulated time span, e.g. \"7d\"", core::Duration::nanos(1),
                         core::Duration::days(kMaxHorizonDays));
  errors.attempt("cluster", [&] {
    ObjectReader cluster = r.object("cluster", "chips, hosts, slices, sites and links");
    s.cluster = parse_cluster(cluster);
  });
  errors.attempt("job", [&] {
    ObjectReader job = r.object("job", "model size, batch and step time");
    s.job = parse_job(job, s.cluster);
  });
  errors.attempt("failures", [&] { s.failures = model_entries(r, "failures", false, file); });
  errors.attempt("stragglers", [&] { s.stragglers = model_entries(r, "stragglers", false, file); });
  errors.attempt("chaos", [&] {
    s.chaos = model_entries(r, "chaos", false, file,
                            "timeline entries (objects with \"at\" and \"action\")");
  });
  errors.attempt("policies", [&] { s.policies = model_entries(r, "policies", true, file); });
  const nlohmann::json& loss = r.raw("loss", "surrogate loss model: {\"type\": \"scaling_law\" "
                                     "or \"nqm\", ...}");
  if (!loss.is_null()) s.loss = ModelEntry{"loss", loss};
  if (s.job.target_loss && !s.loss) {
    errors.add(ScenarioError(file, "job.target_loss", "a target loss needs a \"loss\" model"));
  }
  errors.attempt("cost", [&] { s.cost = parse_cost(r, s.cluster); });
  s.outputs = parse_outputs(r, s.horizon);
  r.finish();
  return s;
}

}  // namespace

Scenario parse_scenario(const nlohmann::json& doc, const std::string& file,
                        ErrorList& errors) {
  ObjectReader r(doc, "", std::make_shared<const std::string>(file), &errors);
  return read_scenario(r, file, errors);
}

std::vector<ParamDoc> describe_scenario() {
  ErrorList errors;  // placeholders may upset cross-field checks: the docs stand
  ObjectReader r = ObjectReader::describe();
  read_scenario(r, "", errors);
  return r.docs();
}

Scenario parse_scenario(const nlohmann::json& doc, const std::string& file) {
  ErrorList errors;
  Scenario s = parse_scenario(doc, file, errors);
  errors.throw_if_any();
  return s;
}

nlohmann::json with_defaults(const nlohmann::json& doc, const DefaultLog& log) {
  nlohmann::json out = doc;
  for (const auto& [path, value] : log.entries) {
    nlohmann::json* node = &out;
    size_t begin = 0;
    while (true) {
      const size_t dot = path.find('.', begin);
      const std::string key = path.substr(begin, dot == std::string::npos ? dot : dot - begin);
      if (dot == std::string::npos) {
        (*node)[key] = value;
        break;
      }
      node = node->is_array() ? &node->at(std::stoul(key)) : &(*node)[key];
      begin = dot + 1;
    }
  }
  return out;
}

cluster::Layout make_layout(const ClusterSpec& spec) {
  std::vector<cluster::SiteShape> shapes;
  for (const SiteSpec& s : spec.sites) shapes.push_back({s.name, s.slices});
  return cluster::Layout(spec.chips_per_host, spec.hosts_per_slice, std::move(shapes),
                         spec.spare_slices);
}

cluster::Network make_network(const ClusterSpec& spec) {
  cluster::Network net;
  for (const SiteSpec& s : spec.sites) net.add_site(s.name);
  for (const LinkSpec& l : spec.links) {
    net.add_link(*net.find_site(l.from), *net.find_site(l.to), l.bandwidth_bps, l.latency);
  }
  return net;
}

void check_replication_seeds(uint64_t first, uint64_t count, const std::string& option) {
  if (first <= kMaxSeed && count - 1 <= kMaxSeed - first) return;
  throw ScenarioError(option, "",
                      fmt::format("{} seeds from seed {} go past the largest seed, {} (2^63 - 1); "
                                  "lower the scenario's seed or the number of seeds",
                                  count, first, kMaxSeed));
}

}  // namespace goodsim::scenario
