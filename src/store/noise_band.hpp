// When two ranked configs are within the timing noise of each other: the one rule `best` marks by.
#pragma once

#include <utility>

#include "store/store.hpp"

namespace evotune {

// The times an ok result's time lies between: the fastest and slowest round of its rerank where it has one,
// else its measurement's p20..p80. {0, 0} without timing.
std::pair<double, double> noise_band(const RankedResult& result);

// Whether `result`'s band overlaps `winner`'s: their difference is within the noise.
bool within_noise(const RankedResult& result, const RankedResult& winner);

}  // namespace evotune
