// The machine's GPUs, for the layers above eval (which never include CUDA): how many, what each one is,
// and why there are none.
#pragma once

#include <optional>
#include <string>

#include "core/device_info.hpp"
#include "core/gpu_state.hpp"

namespace evotune {

// Number of CUDA devices; 0 (never throws) when there is no driver or no device.
int gpu_count();

// Why gpu_count() is 0, in one line ("no CUDA driver (libcuda.so.1 not found)", "no CUDA device"); empty when
// there is a GPU.
std::string no_gpu_reason();

// Name, compute capability and limits of GPU `ordinal`. Throws Error for a missing driver or GPU.
DeviceInfo query_gpu(int ordinal);

// GPU `ordinal`'s clocks, power, temperature, modes and clock reasons through NVML; nullopt (never throws)
// when NVML is not available or does not know the GPU.
std::optional<GpuState> read_gpu_state(int ordinal);
// Why read_gpu_state gives nothing on this machine ("" when NVML is available).
std::string no_gpu_state_reason();

}  // namespace evotune
