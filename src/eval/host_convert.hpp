// Host-side element conversions: raw device bytes of any DType to double, scalars to their device bytes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/dtype.hpp"

namespace evotune {

// IEEE binary16 and bfloat16 bit patterns to and from floating point (round to nearest even; NaN stays
// NaN, overflow gives infinity).
double half_to_double(std::uint16_t bits);
double bfloat16_to_double(std::uint16_t bits);
std::uint16_t double_to_half(double value);
std::uint16_t double_to_bfloat16(double value);

// `count` elements of `dtype` read from `bytes` (which holds at least count * size_of(dtype) bytes).
std::vector<double> to_doubles(const void* bytes, DType dtype, std::int64_t count);

// The value as the kernel parameter of type dtype expects it: size_of(dtype) bytes, little-endian.
// Integer types truncate toward zero.
std::string scalar_bytes(double value, DType dtype);

}  // namespace evotune
