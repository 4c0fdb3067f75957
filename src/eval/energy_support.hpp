// Whether this machine can measure a variant's energy (NVML's energy counter), for commands that need it.
#pragma once

#include <optional>
#include <string>

namespace evotune {

// nullopt when NVML is loaded (the counter itself is read per GPU; a GPU without one measures no energy);
// else why not.
std::optional<std::string> energy_unreadable_reason();

}  // namespace evotune
