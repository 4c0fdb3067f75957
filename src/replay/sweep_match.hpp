// The one rule for whether a recorded sweep can stand in for a space (and a problem): tune --replay and
// bench-strategies both apply it.
#pragma once

#include <string>

#include "core/config.hpp"
#include "replay/recorded_sweep.hpp"

namespace evotune {

// Throws Error "<what> records space 'A', not 'B'" when the sweep is of another space, and, when `problem`
// is given, "<what> records problem X, not Y (pass --problem X)" for another problem. Logs a warning when
// the sweep was recorded with another version of the space file (its valid configs may differ).
void check_sweep_matches(const RecordedSweep& sweep, const std::string& what, const std::string& space_name,
                         const std::string& space_hash, const Sizes* problem);

}  // namespace evotune
