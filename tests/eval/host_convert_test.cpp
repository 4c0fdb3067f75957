// Half/bfloat16 bit conversion and raw-bytes-to-double reading.
#include "eval/host_convert.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

namespace evotune {
namespace host_convert_test {

TEST(HostConvert, HalfKnownValues) {
  EXPECT_EQ(half_to_double(0x3c00), 1.0);
  EXPECT_EQ(half_to_double(0xc000), -2.0);
  EXPECT_EQ(half_to_double(0x7bff), 65504.0);
  EXPECT_EQ(half_to_double(0x0001), std::ldexp(1.0, -24));  // smallest subnormal
  EXPECT_EQ(half_to_double(0x0400), std::ldexp(1.0, -14));  // smallest normal
  EXPECT_EQ(half_to_double(0x3555), 0.333251953125);
  EXPECT_TRUE(std::isinf(half_to_double(0x7c00)));
  EXPECT_LT(half_to_double(0xfc00), 0);
  EXPECT_TRUE(std::isnan(half_to_double(0x7e00)));
  EXPECT_TRUE(std::signbit(half_to_double(0x8000)));
}

TEST(HostConvert, DoubleToHalfRounds) {
  EXPECT_EQ(double_to_half(1.0), 0x3c00);
  EXPECT_EQ(double_to_half(-2.0), 0xc000);
  EXPECT_EQ(double_to_half(65504.0), 0x7bff);
  EXPECT_EQ(double_to_half(65519.0), 0x7bff);
  EXPECT_EQ(double_to_half(65520.0), 0x7c00);
  EXPECT_EQ(double_to_half(1e9), 0x7c00);
  EXPECT_EQ(double_to_half(-1e9), 0xfc00);
  EXPECT_EQ(double_to_half(std::nan("")), 0x7e00);
  EXPECT_EQ(double_to_half(std::ldexp(1.0, -24)), 0x0001);
  EXPECT_EQ(double_to_half(std::ldexp(1.0, -26)), 0x0000);            // below half the smallest subnormal
  EXPECT_EQ(double_to_half(1.0 + std::ldexp(1.0, -11)), 0x3c00);      // tie: to even
  EXPECT_EQ(double_to_half(1.0 + 3 * std::ldexp(1.0, -11)), 0x3c02);  // tie: to even (up)
  EXPECT_EQ(double_to_half(std::ldexp(1.0, -14) - std::ldexp(1.0, -25)), 0x0400);  // rounds up to normal
}

TEST(HostConvert, HalfRoundTripsEveryFiniteValue) {
  for (std::uint32_t bits = 0; bits < 0x10000; ++bits) {
    const double value = half_to_double(static_cast<std::uint16_t>(bits));
    if (std::isnan(value)) continue;
    ASSERT_EQ(double_to_half(value), bits) << std::hex << bits;
  }
}

TEST(HostConvert, Bfloat16KnownValues) {
  EXPECT_EQ(bfloat16_to_double(0x3f80), 1.0);
  EXPECT_EQ(bfloat16_to_double(0xc040), -3.0);
  EXPECT_TRUE(std::isnan(bfloat16_to_double(0x7fc0)));
  EXPECT_TRUE(std::isinf(bfloat16_to_double(0x7f80)));
  EXPECT_EQ(double_to_bfloat16(1.0), 0x3f80);
  EXPECT_EQ(double_to_bfloat16(-3.0), 0xc040);
  EXPECT_EQ(double_to_bfloat16(std::nan("")), 0x7fc0);
  EXPECT_EQ(double_to_bfloat16(1.0 + std::ldexp(1.0, -8)), 0x3f80);      // tie: to even
  EXPECT_EQ(double_to_bfloat16(1.0 + 3 * std::ldexp(1.0, -8)), 0x3f82);  // tie: to even (up)
  for (std::uint32_t bits = 0; bits < 0x10000; ++bits) {
    const double value = bfloat16_to_double(static_cast<std::uint16_t>(bits));
    if (std::isnan(value)) continue;
    ASSERT_EQ(double_to_bfloat16(value), bits) << std::hex << bits;
  }
}

TEST(HostConvert, ToDoublesReadsEachDType) {
  const std::uint16_t halves[] = {0x3c00, 0x7e00};
  auto h = to_doubles(halves, DType::f16, 2);
  EXPECT_EQ(h[0], 1.0);
  EXPECT_TRUE(std::isnan(h[1]));

  const std::uint16_t bf[] = {0xc040};
  EXPECT_EQ(to_doubles(bf, DType::bf16, 1)[0], -3.0);

  const float floats[] = {0.5f, -1.25f};
  EXPECT_EQ(to_doubles(floats, DType::f32, 2), (std::vector<double>{0.5, -1.25}));

  const double doubles[] = {1e300};
  EXPECT_EQ(to_doubles(doubles, DType::f64, 1)[0], 1e300);

  const std::int32_t ints[] = {-7, 42};
  EXPECT_EQ(to_doubles(ints, DType::i32, 2), (std::vector<double>{-7, 42}));

  const std::int64_t longs[] = {1LL << 40};
  EXPECT_EQ(to_doubles(longs, DType::i64, 1)[0], std::ldexp(1.0, 40));
}

TEST(HostConvert, ScalarBytesHaveTheDTypeSizeAndValue) {
  std::int32_t i32 = 0;
  const std::string i = scalar_bytes(1024.0, DType::i32);
  ASSERT_EQ(i.size(), 4u);
  std::memcpy(&i32, i.data(), 4);
  EXPECT_EQ(i32, 1024);

  const std::string l = scalar_bytes(-3.0, DType::i64);
  ASSERT_EQ(l.size(), 8u);
  std::int64_t i64 = 0;
  std::memcpy(&i64, l.data(), 8);
  EXPECT_EQ(i64, -3);

  const std::string f = scalar_bytes(0.125, DType::f32);
  ASSERT_EQ(f.size(), 4u);
  float f32 = 0;
  std::memcpy(&f32, f.data(), 4);
  EXPECT_EQ(f32, 0.125f);

  const std::string h = scalar_bytes(1.0, DType::f16);
  ASSERT_EQ(h.size(), 2u);
  std::uint16_t bits = 0;
  std::memcpy(&bits, h.data(), 2);
  EXPECT_EQ(bits, 0x3c00);
}

}  // namespace host_convert_test
}  // namespace evotune
