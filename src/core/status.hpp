// The one status every evaluated variant ends with.
#pragma once

#include <optional>
#include <string_view>

namespace evotune {

enum class Status {
  ok,                // compiled, ran, matched the reference, timed
  compile_error,     // NVRTC rejected the source
  resource_error,    // too much shared memory, too many registers or threads for the device
  launch_error,      // launch failed or the kernel faulted (illegal address, misaligned access, ...)
  timeout,           // did not finish in time
  wrong_result,      // finite output that differs from the reference beyond the tolerances
  nan,               // non-finite or unwritten (still NaN-poisoned) output elements
  out_of_bounds,     // wrote outside a buffer: the guard region before or after it changed
  nondeterministic,  // two launches on the same inputs gave outputs that differ bit for bit (a race)
};

std::string_view to_string(Status status);
std::optional<Status> status_from_string(std::string_view text);

}  // namespace evotune
