// goodsim._core.models(): the model catalogue (app/model_catalogue.h) as
// Python lists and dicts.
#include <pybind11/pybind11.h>

#include "app/model_catalogue.h"
#include "python/bindings.h"

namespace goodsim::python {

namespace {

py::dict param_dict(const scenario::ParamDoc& d) {
  return py::dict("key"_a = d.key, "kind"_a = d.kind, "unit"_a = none_if_empty(d.unit),
                  "required"_a = d.required, "default"_a = none_if_empty(d.default_text),
                  "range"_a = none_if_empty(d.range), "help"_a = d.help);
}

py::list catalogue() {
  py::list out;
  for (const app::ModelDoc& m : app::model_catalogue(models::builtin_registry())) {
    py::list params;
    for (const scenario::ParamDoc& d : m.params) params.append(param_dict(d));
    out.append(py::dict("kind"_a = m.kind, "scenario_key"_a = m.scenario_key, "type"_a = m.type,
                        "help"_a = m.help, "params"_a = params));
  }
  return out;
}

}  // namespace

void register_models(py::module_& m) {
  m.def("models", &catalogue,
        "The model catalogue (what `goodsim list-models` prints) as a list of dicts.");
}

}  // namespace goodsim::python
