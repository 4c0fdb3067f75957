// A config from text: "NAME=V,NAME=V" (--reference-config) over a base config.
#pragma once

#include <string>

#include "core/config.hpp"

namespace evotune {

// `base` with the values `text` gives (items NAME=INTEGER separated by commas, spaces allowed). Throws Error,
// one line naming the item, on a malformed item, a name given twice or a name `base` does not have.
Config override_config(const Config& base, const std::string& text);

}  // namespace evotune
