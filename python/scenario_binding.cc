// goodsim._core.Scenario and goodsim._core.load().
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "python/bindings.h"
#include "python/scenario_handle.h"
#include "sim/scenario/units.h"

namespace goodsim::python {

namespace {

std::string describe(const ScenarioHandle& s) {
  const models::PreparedScenario& p = s.prepared();
  return "<goodsim.Scenario '" + p.scenario.name + "' from " + s.source().label + ": " +
         std::to_string(p.layout.chips()) + " chips, " + std::to_string(p.policies.size()) +
         " policies, horizon " + scenario::format_duration(p.scenario.horizon) + ">";
}

}  // namespace

constexpr const char* kScenarioDoc =
    "A validated scenario, ready to run: made by goodsim.load(), read-only.\n\n"
    "Every check of `goodsim validate` has passed, so run() and sweep() can only fail on\n"
    "a sweep's --vary values.";

constexpr const char* kLoadDoc =
    "Loads and validates a scenario (see goodsim.load, which wraps this).\n\n"
    "source: a file path when is_file, else a JSON document as text; label: the name\n"
    "errors give a document; overrides: 'path=value' strings, as `goodsim run --set`.";

void register_scenario(py::module_& m) {
  py::class_<ScenarioHandle>(m, "Scenario", kScenarioDoc)
      .def_property_readonly(
          "name", [](const ScenarioHandle& s) { return s.prepared().scenario.name; },
          "The scenario's \"name\".")
      .def_property_readonly(
          "file", [](const ScenarioHandle& s) { return s.source().label; },
          "Where it came from: the file as given, or '<dict>' for a document.")
      .def_property_readonly(
          "seed", [](const ScenarioHandle& s) { return s.prepared().scenario.seed; },
          "The scenario's \"seed\": the seed run() uses by default and a sweep's first seed.")
      .def_property_readonly(
          "horizon_s",
          [](const ScenarioHandle& s) { return s.prepared().scenario.horizon.seconds_f(); },
          "Simulated time of a run, in seconds.")
      .def_property_readonly(
          "chips", [](const ScenarioHandle& s) { return s.prepared().layout.chips(); },
          "Chips in the cluster (spares included).")
      .def_property_readonly("policies", &ScenarioHandle::policy_names,
                             "Policy names, in scenario order (a run reports them so).")
      .def_property_readonly("policy_types", &ScenarioHandle::policy_types,
                             "Policy types (\"data_parallel\", ...), in scenario order.")
      .def(
          "to_dict", [](const ScenarioHandle& s) { return json_to_python(s.source().doc.dump()); },
          "The scenario document (a fresh dict) with its overrides applied, as validated.")
      .def("__repr__", &describe);
  m.def("load", &ScenarioHandle::load, kLoadDoc, "source"_a, "is_file"_a, "label"_a,
        "overrides"_a);
  m.def(
      "demo_scenario", [] { return std::string(app::demo_scenario_text()); },
      "The built-in demo scenario (scenarios/demo.json) as JSON text.");
}

}  // namespace goodsim::python
