// TMA tensor maps: a TensorMapSpec and a buffer's device address encoded by the driver
// (cuTensorMapEncodeTiled) into the 128 opaque bytes a kernel takes by value.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "core/error.hpp"
#include "core/launch_spec.hpp"

namespace evotune::cuda {

// 128 bytes, 64-byte aligned, as the driver's CUtensorMap and the kernel parameter.
struct alignas(64) EncodedTensorMap {
  std::array<std::uint64_t, 16> words{};
};

// The driver refused the encoding (alignment, a box too wide for the swizzle, a stride not a multiple of
// 16, too many dimensions): a resource error of the variant, with the map described.
class TensorMapRefused : public Error {
 public:
  using Error::Error;
};

// Throws TensorMapRefused naming `name`, the map and the driver's reason.
EncodedTensorMap encode_tensor_map(const std::string& name, const TensorMapSpec& spec, DType dtype,
                                   std::uint64_t address);

// "dims 64x512x8, box 64x128x1, swizzle 128B" for messages.
std::string describe(const TensorMapSpec& spec);

}  // namespace evotune::cuda
