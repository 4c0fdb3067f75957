// The machine's NVRTC and GPUs, gathered for `evotune devices`.
#include "tools/machine_devices.hpp"

#include "compile/compiler.hpp"
#include "eval/device_query.hpp"

namespace evotune {

MachineDevices machine_devices() {
  MachineDevices machine;
  machine.nvrtc_version = Compiler::nvrtc_version();
  const int count = gpu_count();
  if (count == 0) machine.no_gpu_reason = no_gpu_reason();
  for (int ordinal = 0; ordinal < count; ++ordinal) machine.gpus.push_back(query_gpu(ordinal));
  return machine;
}

}  // namespace evotune
