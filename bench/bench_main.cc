// goodsim_bench [--filter NAME]... [--json FILE] [--check] [NAME]...: runs the named
// benchmarks (default: all), prints each figure beside its target and, with --json,
// writes every figure to FILE. Exit status: 0 whatever the figures (a slow machine is
// not an error), unless --check is given: then 1 when a benchmark missed a target.
// 2 on a bad command line.
#include <fmt/format.h>
#include <sys/utsname.h>

#include <algorithm>
#include <cstring>
#include <ctime>
#include <fstream>
#include <functional>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "bench/bench.h"

namespace {

using goodsim::bench::Figures;

struct Bench {
  const char* name;
  std::function<int(Figures&)> run;  // returns 1 when a figure missed its target
};

std::vector<Bench> benches() {
  namespace b = goodsim::bench;
  return {{"hold", b::hold_model},
          {"cluster", [](Figures&) { return b::cluster_build(); }},
          {"inject", [](Figures&) { return b::inject(); }},
          {"sweep", [](Figures&) { return b::sweep(); }},
          {"paper", [](Figures&) { return b::paper(); }},
          {"paper-table1", [](Figures&) { return b::paper_table1(); }},
          {"bandwidth", [](Figures&) { return b::bandwidth(); }},
          {"calibrate", [](Figures&) { return b::calibrate(); }}};
}

nlohmann::json machine() {
  utsname u{};
  uname(&u);
  std::string cpu;
  std::ifstream info("/proc/cpuinfo");
  for (std::string line; cpu.empty() && std::getline(info, line);) {
    if (line.rfind("model name", 0) == 0) cpu = line.substr(line.find(':') + 2);
  }
  return {{"host", u.nodename}, {"kernel", u.release}, {"cpu", cpu},
          {"threads", std::thread::hardware_concurrency()}, {"time", std::time(nullptr)}};
}

nlohmann::json to_json(const Figures& figures) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& f : figures) {
    nlohmann::json j = {{"name", f.name}, {"value", f.value}, {"unit", f.unit}};
    if (f.target) {
      j["target"] = *f.target;
      j["target_is"] = f.higher_is_better ? "min" : "max";
      j["met"] = f.met();
    }
    out.push_back(j);
  }
  return out;
}

int usage(const std::vector<Bench>& all) {
  std::string names;
  for (const Bench& b : all) names += std::string(names.empty() ? "" : "|") + b.name;
  std::cerr << "usage: goodsim_bench [--filter NAME]... [--json FILE] [--check] [" << names
            << "]...\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<Bench> all = benches();
  std::vector<std::string> wanted;
  std::string json_path;
  bool check = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if ((arg == "--filter" || arg == "--json") && i + 1 < argc) {
      (arg == "--json" ? json_path : wanted.emplace_back()) = argv[++i];
    } else if (arg == "--check") {
      check = true;
    } else if (!arg.empty() && arg[0] != '-') {
      wanted.push_back(arg);
    } else {
      return usage(all);
    }
  }
  for (const std::string& w : wanted) {
    if (std::none_of(all.begin(), all.end(), [&](const Bench& b) { return w == b.name; })) {
      return usage(all);
    }
  }
  nlohmann::json results = {{"machine", machine()}, {"benchmarks", nlohmann::json::object()}};
  int missed = 0;
  for (const Bench& b : all) {
    if (!wanted.empty() && std::find(wanted.begin(), wanted.end(), b.name) == wanted.end()) continue;
    Figures figures;
    const int rc = b.run(figures);
    missed |= rc;
    results["benchmarks"][b.name] = {{"met_targets", rc == 0}, {"figures", to_json(figures)}};
    if (rc != 0) fmt::print("{}: a figure missed its target (see above)\n", b.name);
  }
  if (!json_path.empty()) {
    std::ofstream(json_path) << results.dump(2) << "\n";
    fmt::print("wrote {}\n", json_path);
  }
  return check ? missed : 0;
}
