// goodsim.ScenarioError: scenario::ScenarioError seen from Python.
#include <pybind11/pybind11.h>

#include <exception>

#include "python/bindings.h"
#include "sim/scenario/error.h"

namespace goodsim::python {

namespace {

constexpr const char* kDoc =
    "Bad scenario input: a file, a document or an override that is not a valid scenario.\n\n"
    "str(error) is the message the command line prints, e.g.\n"
    "'scenarios/x.json: cluster.chips: expected a count >= 1, got -5'. Attributes:\n"
    "  file     the scenario file as given, '<dict>' for a document, 'overrides' for the\n"
    "           overrides argument, '--vary' for a sweep's grid; None when there is none\n"
    "  path     the dotted JSON path of the bad value ('policies.1.learners'); None for the\n"
    "           document itself\n"
    "  message  what was expected and what was found";

// Raises the Python ScenarioError for `e`, with its attributes set.
void raise_scenario_error(const scenario::ScenarioError& e) {
  const py::object cls = py::module_::import("goodsim._core").attr("ScenarioError");
  const py::object error = cls(e.what());
  error.attr("file") = none_if_empty(e.file());
  error.attr("path") = none_if_empty(e.path());
  error.attr("message") = e.message();
  PyErr_SetObject(cls.ptr(), error.ptr());
}

}  // namespace

void register_errors(py::module_& m) {
  // The class lives as long as the module that holds it.
  const py::exception<scenario::ScenarioError> cls(m, "ScenarioError", PyExc_ValueError);
  cls.attr("__doc__") = kDoc;
  cls.attr("__module__") = "goodsim";
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const scenario::ScenarioError& e) {
      raise_scenario_error(e);
    }
  });
}

}  // namespace goodsim::python
