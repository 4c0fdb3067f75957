// A deterministic sample of a space's valid configs that still reaches the edges of every parameter.
#pragma once

#include <cstddef>
#include <vector>

#include "core/config.hpp"

namespace evotune {

// At most `count` of `configs` (valid configs in enumeration order), in that order: first, for every
// parameter, the first config holding its smallest and the first holding its largest value among the valid
// configs (the corners of each range, kept even beyond `count`); then configs at evenly spaced positions
// until `count` is reached. Same input, same sample. `count` >= configs.size() returns every config.
std::vector<Config> sample_configs(const std::vector<Config>& configs, std::size_t count);

}  // namespace evotune
