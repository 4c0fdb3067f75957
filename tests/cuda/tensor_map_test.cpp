// The tensor-map encoder's own checks, made before the driver is asked (so they run without a GPU): a row
// stride or an address TMA cannot take is refused with the rule it breaks, not the driver's bare
// CUDA_ERROR_INVALID_VALUE, and not a crash.
#include "cuda/tensor_map.hpp"

#include <gtest/gtest.h>

namespace evotune::cuda {
namespace tensor_map_test {

// A [4095, 4093] fp16 matrix, rows 4093 elements (8186 bytes) apart: K odd.
TensorMapSpec odd_rows() {
  TensorMapSpec spec;
  spec.buffer = "A";
  spec.dims = {4093, 4095};
  spec.strides = {2 * 4093};
  spec.box = {64, 128};
  spec.swizzle_bytes = 128;
  return spec;
}

std::string refusal(const TensorMapSpec& spec, std::uint64_t address) {
  try {
    encode_tensor_map("A_map", spec, DType::f16, address);
  } catch (const TensorMapRefused& e) {
    return e.what();
  }
  return "no refusal";
}

TEST(TensorMapEncoding, AStrideNotAMultipleOf16BytesIsRefusedWithTheRule) {
  const std::string text = refusal(odd_rows(), 1u << 20);
  EXPECT_NE(text.find("tensor map 'A_map' over 'A' (dims 4093x4095, box 64x128, strides 8186 bytes"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("TMA needs strides that are multiples of 16 bytes, but dimension 1's is 8186 bytes"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find('\n'), std::string::npos) << text;
}

TEST(TensorMapEncoding, AnAddressOffA16ByteBoundaryIsRefusedWithTheRule) {
  TensorMapSpec spec = odd_rows();
  spec.strides = {2 * 4096};
  const std::string text = refusal(spec, (1u << 20) + 2);
  EXPECT_NE(text.find("TMA needs the buffer's address on a 16-byte boundary, but it is 2 bytes past one"),
            std::string::npos)
      << text;
}

}  // namespace tensor_map_test
}  // namespace evotune::cuda
