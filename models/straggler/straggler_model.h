// Interface of every straggler model (models/straggler/).
//
// A straggler model is an EnvironmentModel (environment_model.h) that slows
// chips, slices or the whole fleet through the cluster's slowdown state. It
// starts at t = 0, after the failure injectors started; expected_use() counts
// its events and the slowdowns it applies at start.
#pragma once

#include "models/environment_model.h"

namespace goodsim::models::straggler {

// A distinct type, so that a maker of straggler models cannot hand out a
// failure injector (and the reverse).
class StragglerModel : public EnvironmentModel {};

}  // namespace goodsim::models::straggler
