// Kernel parameters packed for cuLaunchKernel, in LaunchSpec.args order.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/launch_spec.hpp"
#include "cuda/tensor_map.hpp"

namespace evotune {

// The bytes `arg` takes among a kernel's parameters: a device pointer, its scalar type, or a CUtensorMap.
std::size_t packed_bytes(const ArgSpec& arg);

class KernelArgs {
 public:
  // The device address of the named buffer, or nullopt when the problem has no such buffer.
  using BufferLookup = std::function<std::optional<std::uint64_t>(const std::string& name)>;

  // Scalars are converted to their DType (int32 -> int, int64, float, double, half, bfloat16); buffers
  // become their device pointer; tensor maps are encoded by the driver from their buffer's device pointer.
  // Throws Error("argument 'x' names no buffer") for an unknown buffer, cuda::TensorMapRefused for a tensor
  // map the driver refuses.
  KernelArgs(const std::vector<ArgSpec>& args, const BufferLookup& buffer_address);
  KernelArgs(const KernelArgs&) = delete;  // params() points into this object
  KernelArgs& operator=(const KernelArgs&) = delete;

  // kernelParams for cuLaunchKernel: one pointer per argument, valid while this object lives.
  void** params() { return pointers_.data(); }
  std::size_t size() const { return slots_.size(); }

 private:
  struct alignas(8) Slot {
    unsigned char bytes[8] = {};
  };
  std::vector<Slot> slots_;
  std::vector<cuda::EncodedTensorMap> maps_;  // sized once: the pointers into it stay valid
  std::vector<void*> pointers_;
};

}  // namespace evotune
