// Sweep against space: the space must be the same, the problem too where one is asked for; the version may
// differ, with a warning.
#include "replay/sweep_match.hpp"

#include <spdlog/spdlog.h>

#include "core/error.hpp"

namespace evotune {

void check_sweep_matches(const RecordedSweep& sweep, const std::string& what, const std::string& space_name,
                         const std::string& space_hash, const Sizes* problem) {
  if (sweep.space_name != space_name)
    throw Error(what + " records space '" + sweep.space_name + "', not '" + space_name + "'");
  if (problem && sweep.problem != *problem)
    throw Error(what + " records problem " + key_value_text(sweep.problem) + ", not " +
                key_value_text(*problem) + " (pass --problem " + key_value_text(sweep.problem) + ")");
  if (sweep.space_hash != space_hash)
    spdlog::warn(
        "{} was recorded with version {} of {}, the space file is version {}: the valid configs may differ",
        what, sweep.space_hash, space_name, space_hash);
}

}  // namespace evotune
