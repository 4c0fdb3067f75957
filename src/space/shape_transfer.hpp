// Transfer across shapes: how near two problems are, which stored configs a new problem's search starts
// from, and the order in which a list of problems is tuned so that each starts near one tuned before.
#pragma once

#include <cstddef>
#include <vector>

#include "core/config.hpp"
#include "core/problem_time.hpp"

namespace evotune {

// Euclidean distance over the sizes, each in log2 (S=512 and S=1024 are 1 apart, as are S=2048 and 4096);
// a size that is not positive in both, or missing from one, adds 1 when the values differ.
double problem_distance(const Sizes& a, const Sizes& b);

// The fastest `per_problem` configs of each of the `problems` nearest problems in `times` other than
// `target` (ties in distance: the earlier problem), nearest problem first, fastest first within it, each
// config once.
std::vector<Config> transfer_configs(const std::vector<ProblemTime>& times, const Sizes& target,
                                     std::size_t problems, std::size_t per_problem);

// Indices of `problems` in tuning order: each next one is the problem nearest to any tuned so far (those in
// `tuned` and those earlier in the order); with nothing tuned, the first is the most central problem (the
// least summed distance to the others). Ties keep the given order.
std::vector<std::size_t> transfer_order(const std::vector<Sizes>& problems, const std::vector<Sizes>& tuned);

}  // namespace evotune
