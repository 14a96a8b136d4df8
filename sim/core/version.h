// The goodsim version written into every summary.
#pragma once

namespace goodsim::core {
inline constexpr const char* kVersion = "0.1.0";
}  // namespace goodsim::core
