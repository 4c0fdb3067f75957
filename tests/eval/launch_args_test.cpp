// Packing of kernel arguments for cuLaunchKernel.
#include "eval/launch_args.hpp"

#include <gtest/gtest.h>

#include <cstring>

#include "core/error.hpp"

namespace evotune {
namespace launch_args_test {

std::optional<std::uint64_t> lookup(const std::string& name) {
  if (name == "x") return 0x7f0000001000ULL;
  if (name == "y") return 0x7f0000002000ULL;
  return std::nullopt;
}

TEST(KernelArgs, PacksBuffersAndScalarsInOrder) {
  const std::vector<ArgSpec> specs{
      {ArgSpec::Kind::buffer, "y", DType::f32, 0, {}},
      {ArgSpec::Kind::scalar, "a", DType::f32, 2.5, {}},
      {ArgSpec::Kind::buffer, "x", DType::f16, 0, {}},
      {ArgSpec::Kind::scalar, "n", DType::i32, 1000, {}},
      {ArgSpec::Kind::scalar, "big", DType::i64, 5e9, {}},
      {ArgSpec::Kind::scalar, "scale", DType::f64, 0.1, {}},
      {ArgSpec::Kind::scalar, "h", DType::f16, -2.0, {}},
  };
  KernelArgs args(specs, lookup);
  ASSERT_EQ(args.size(), specs.size());
  void** params = args.params();

  std::uint64_t pointer = 0;
  std::memcpy(&pointer, params[0], 8);
  EXPECT_EQ(pointer, 0x7f0000002000ULL);
  EXPECT_EQ(*static_cast<float*>(params[1]), 2.5f);
  std::memcpy(&pointer, params[2], 8);
  EXPECT_EQ(pointer, 0x7f0000001000ULL);
  EXPECT_EQ(*static_cast<std::int32_t*>(params[3]), 1000);
  EXPECT_EQ(*static_cast<std::int64_t*>(params[4]), 5000000000LL);
  EXPECT_EQ(*static_cast<double*>(params[5]), 0.1);
  EXPECT_EQ(*static_cast<std::uint16_t*>(params[6]), 0xc000);
  for (std::size_t i = 0; i < args.size(); ++i)
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(params[i]) % 8, 0u) << "argument " << i << " is not 8-aligned";
}

TEST(KernelArgs, UnknownBufferThrowsNamingIt) {
  const std::vector<ArgSpec> specs{{ArgSpec::Kind::buffer, "missing", DType::f32, 0, {}}};
  try {
    KernelArgs args(specs, lookup);
    FAIL() << "expected Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'missing'"), std::string::npos) << e.what();
  }
}

}  // namespace launch_args_test
}  // namespace evotune
