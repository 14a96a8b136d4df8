// The parts of the extension module goodsim._core, each registered by one
// function (module.cc calls them in order). The public API, with its
// docstrings and pandas frames, is the Python package around it
// (goodsim/__init__.py); _core deals in plain values: JSON text, lists,
// dicts and numpy arrays.
#pragma once

#include <pybind11/pybind11.h>

#include <string>

namespace goodsim::python {

// The conventions of every binding file: `py::` for pybind11, and its
// literals ("name"_a for keyword arguments).
namespace py = pybind11;
using namespace pybind11::literals;

// ScenarioError (a ValueError with .file, .path and .message).
void register_errors(py::module_& m);
// Scenario and load().
void register_scenario(py::module_& m);
// run(): one seed, every policy.
void register_run(py::module_& m);
// sweep(): a grid x seeds, the three tables as CSV text.
void register_sweep(py::module_& m);
// models(): the model catalogue.
void register_models(py::module_& m);

// A JSON text as the Python value json.loads() makes of it (values.cc).
py::object json_to_python(const std::string& text);
// None for an empty string, else the string (values.cc).
py::object none_if_empty(const std::string& s);

}  // namespace goodsim::python
