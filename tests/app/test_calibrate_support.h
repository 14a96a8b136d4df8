// Helpers shared by the tests of goodsim calibrate.
#pragma once

#include <fstream>
#include <string>

#include "sim/scenario/error.h"

namespace goodsim::app::calibrate::test {

inline void write(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

// The message of the ScenarioError `f` throws ("" if none).
template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const scenario::ScenarioError& e) {
    return e.what();
  }
  return "";
}

}  // namespace goodsim::app::calibrate::test
