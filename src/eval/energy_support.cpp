// NVML's presence, as the energy measurement needs it.
#include "eval/energy_support.hpp"

#include "cuda/nvml.hpp"

namespace evotune {

std::optional<std::string> energy_unreadable_reason() {
  const cuda::Nvml& nvml = cuda::Nvml::system();
  if (nvml.available()) return std::nullopt;
  return nvml.failure();
}

}  // namespace evotune
