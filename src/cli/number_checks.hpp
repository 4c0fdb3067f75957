// Checks of the numeric options, refusing in words a user reads at once ("--top: -1 is not positive"), where
// CLI11's own print the range's bounds as doubles (up to 1.8e308 written out in full).
#pragma once

#include <CLI/CLI.hpp>

namespace evotune::cli {

// A number above 0.
CLI::Validator positive();
// A number of at least 0.
CLI::Validator non_negative();
// A number from `low` to `high`, both included.
CLI::Validator in_range(double low, double high);

}  // namespace evotune::cli
