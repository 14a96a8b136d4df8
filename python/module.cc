// PYBIND11_MODULE: the extension goodsim._core (see bindings.h).
#include <pybind11/pybind11.h>

#include "python/bindings.h"
#include "sim/core/version.h"

PYBIND11_MODULE(_core, m) {
  m.doc() =
      "The compiled core of the goodsim package: scenario loading, runs, sweeps and the "
      "model catalogue. Use it through the package goodsim, which returns pandas frames.";
  m.attr("version") = goodsim::core::kVersion;
  goodsim::python::register_errors(m);
  goodsim::python::register_scenario(m);
  goodsim::python::register_run(m);
  goodsim::python::register_sweep(m);
  goodsim::python::register_models(m);
}
