// The parts of the extension module goodsim._core, each registered by one
// function (module.cc calls them in order). The public API, with its
// docstrings and pandas frames, is the Python package around it
// (goodsim/__init__.py); _core deals in plain values: JSON text, lists,
// dicts and numpy arrays.
#pragma once

#include <pybind11/pybind11.h>

#include <string>

namespace goodsim::python {

// ScenarioError (a ValueError with .file, .path and .message).
void register_errors(pybind11::module_& m);
// Scenario and load().
void register_scenario(pybind11::module_& m);
// run(): one seed, every policy.
void register_run(pybind11::module_& m);
// sweep(): a grid x seeds, the three tables as CSV text.
void register_sweep(pybind11::module_& m);
// models(): the model catalogue.
void register_models(pybind11::module_& m);

// A JSON text as the Python value json.loads() makes of it (values.cc).
pybind11::object json_to_python(const std::string& text);
// None for an empty string, else the string (values.cc).
pybind11::object none_if_empty(const std::string& s);

}  // namespace goodsim::python
