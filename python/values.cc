// Small conversions shared by the bindings (declared in bindings.h).
#include "python/bindings.h"

namespace goodsim::python {

py::object json_to_python(const std::string& text) {
  return py::module_::import("json").attr("loads")(text);
}

py::object none_if_empty(const std::string& s) {
  if (s.empty()) return py::none();
  return py::str(s);
}

}  // namespace goodsim::python
