// Device queries through the driver, for the layers above eval.
#include "eval/device_query.hpp"

#include "core/error.hpp"
#include "cuda/driver.hpp"
#include "cuda/nvml.hpp"
#include "cuda/resources.hpp"

namespace evotune {

int gpu_count() { return cuda::device_count(); }

std::string no_gpu_reason() { return cuda::no_device_reason(); }

DeviceInfo query_gpu(int ordinal) { return cuda::query_device(ordinal); }

std::optional<GpuState> read_gpu_state(int ordinal) {
  const cuda::Nvml& nvml = cuda::Nvml::system();
  if (!nvml.available()) return std::nullopt;
  try {
    return nvml.read(cuda::device_pci_bus_id(ordinal));
  } catch (const Error&) {
    return std::nullopt;
  }
}

std::string no_gpu_state_reason() { return cuda::Nvml::system().failure(); }

}  // namespace evotune
