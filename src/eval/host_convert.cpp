// Bit-level half/bfloat16 conversion written out, so results do not depend on compiler extensions.
#include "eval/host_convert.hpp"

#include <cmath>
#include <cstring>

namespace evotune {
namespace {

template <typename T>
T load(const unsigned char* bytes) {
  T value;
  std::memcpy(&value, bytes, sizeof value);
  return value;
}

template <typename T>
std::string bytes_of(T value) {
  std::string bytes(sizeof value, '\0');
  std::memcpy(bytes.data(), &value, sizeof value);
  return bytes;
}

}  // namespace

double half_to_double(std::uint16_t bits) {
  const double sign = (bits & 0x8000) ? -1.0 : 1.0;
  const int exponent = (bits >> 10) & 0x1f;
  const int mantissa = bits & 0x3ff;
  if (exponent == 0x1f) return mantissa ? std::nan("") : sign * INFINITY;
  if (exponent == 0) return sign * std::ldexp(mantissa, -24);
  return sign * std::ldexp(1024 + mantissa, exponent - 25);
}

double bfloat16_to_double(std::uint16_t bits) {
  const std::uint32_t widened = static_cast<std::uint32_t>(bits) << 16;
  float value;
  std::memcpy(&value, &widened, sizeof value);
  return value;
}

std::uint16_t double_to_half(double value) {
  const std::uint16_t sign = std::signbit(value) ? 0x8000 : 0;
  if (std::isnan(value)) return 0x7e00 | sign;
  const double magnitude = std::fabs(value);
  if (magnitude >= 65520.0) return 0x7c00 | sign;  // 65520 is halfway to 2^16: rounds to infinity
  if (magnitude < std::ldexp(1.0, -14)) {          // subnormal: units of 2^-24
    return sign | static_cast<std::uint16_t>(std::nearbyint(std::ldexp(magnitude, 24)));
  }
  int exponent = 0;
  std::frexp(magnitude, &exponent);  // magnitude = f * 2^exponent, f in [0.5, 1)
  --exponent;                        // magnitude = (1 + m) * 2^exponent
  int mantissa = static_cast<int>(std::nearbyint((std::ldexp(magnitude, -exponent) - 1.0) * 1024.0));
  if (mantissa == 1024) {
    mantissa = 0;
    ++exponent;
  }
  if (exponent + 15 >= 0x1f) return 0x7c00 | sign;
  return sign | static_cast<std::uint16_t>(((exponent + 15) << 10) | mantissa);
}

std::uint16_t double_to_bfloat16(double value) {
  const float narrowed = static_cast<float>(value);
  std::uint32_t bits;
  std::memcpy(&bits, &narrowed, sizeof bits);
  if (std::isnan(narrowed)) return static_cast<std::uint16_t>(0x7fc0 | ((bits >> 16) & 0x8000));
  bits += 0x7fff + ((bits >> 16) & 1);  // round to nearest even; carries into the exponent (inf) as it should
  return static_cast<std::uint16_t>(bits >> 16);
}

std::vector<double> to_doubles(const void* bytes, DType dtype, std::int64_t count) {
  std::vector<double> values(static_cast<std::size_t>(count));
  const auto* data = static_cast<const unsigned char*>(bytes);
  const std::size_t stride = size_of(dtype);
  for (std::size_t i = 0; i < values.size(); ++i) {
    const unsigned char* element = data + i * stride;
    switch (dtype) {
      case DType::f16:
        values[i] = half_to_double(load<std::uint16_t>(element));
        break;
      case DType::bf16:
        values[i] = bfloat16_to_double(load<std::uint16_t>(element));
        break;
      case DType::f32:
        values[i] = load<float>(element);
        break;
      case DType::f64:
        values[i] = load<double>(element);
        break;
      case DType::i32:
        values[i] = load<std::int32_t>(element);
        break;
      case DType::i64:
        values[i] = static_cast<double>(load<std::int64_t>(element));
        break;
    }
  }
  return values;
}

std::string scalar_bytes(double value, DType dtype) {
  switch (dtype) {
    case DType::f16:
      return bytes_of(double_to_half(value));
    case DType::bf16:
      return bytes_of(double_to_bfloat16(value));
    case DType::f32:
      return bytes_of(static_cast<float>(value));
    case DType::f64:
      return bytes_of(value);
    case DType::i32:
      return bytes_of(static_cast<std::int32_t>(value));
    case DType::i64:
      return bytes_of(static_cast<std::int64_t>(value));
  }
  return {};
}

}  // namespace evotune
