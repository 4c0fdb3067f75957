// The fastest ok median of one config on one problem (over devices): what the store reports per problem,
// and what transfer across shapes and the dispatch table read.
#pragma once

#include <cstdint>

#include "core/config.hpp"

namespace evotune {

struct ProblemTime {
  Sizes problem;
  std::int64_t config_id = 0;
  Config params;
  double median_us = 0;
};

}  // namespace evotune
