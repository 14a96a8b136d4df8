// UTF-8 validity of text that did not come through the JSON parser (command-line values,
// CSV fields): such text ends up in JSON outputs, which must be valid UTF-8.
#pragma once

#include <string_view>

namespace goodsim::scenario {

// True if `text` is well-formed UTF-8 (no overlong forms, no surrogates, at most U+10FFFF).
bool is_valid_utf8(std::string_view text);

}  // namespace goodsim::scenario
