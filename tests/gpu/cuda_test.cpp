// Driver wrappers on a real GPU: device query, error texts, builtin fill and poison kernels.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <set>

#include "compile/compiler.hpp"
#include "cuda/resources.hpp"
#include "eval/builtin_kernels.hpp"
#include "eval/host_convert.hpp"

namespace evotune {
namespace {

#define SKIP_WITHOUT_GPU()                                                       \
  if (cuda::device_count() == 0) GTEST_SKIP() << cuda::no_device_reason()

TEST(CudaDevice, QueryIsSane) {
  SKIP_WITHOUT_GPU();
  const DeviceInfo info = cuda::query_device(0);
  std::printf("device: %s sm_%d%d, %d SMs, L2 %lld B, smem opt-in %d B, driver %d\n", info.name.c_str(), info.cc_major,
              info.cc_minor, info.sm_count, static_cast<long long>(info.l2_bytes), info.max_smem_per_block,
              info.driver_version);
  EXPECT_FALSE(info.name.empty());
  EXPECT_GE(info.cc_major, 7);
  EXPECT_GT(info.sm_count, 0);
  EXPECT_GT(info.l2_bytes, 1 << 20);
  EXPECT_GT(info.global_mem_bytes, std::int64_t{1} << 30);
  EXPECT_EQ(info.max_threads_per_block, 1024);
  EXPECT_GE(info.max_smem_per_block, 48 * 1024);
  EXPECT_GE(info.smem_per_sm, info.max_smem_per_block);
  EXPECT_GT(info.regs_per_block, 0);
  EXPECT_GT(info.regs_per_sm, 0);
  EXPECT_EQ(info.warp_size, 32);
  EXPECT_GE(info.driver_version, 12000);
  EXPECT_EQ(info.arch(), "sm_" + std::to_string(info.cc_major) + std::to_string(info.cc_minor));
}

TEST(CudaDevice, ErrorTextComesFromTheDriver) {
  SKIP_WITHOUT_GPU();
  EXPECT_EQ(cuda::error_text(CUDA_ERROR_ILLEGAL_ADDRESS),
            "CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access was encountered)");
  try {
    cuda::check(CUDA_ERROR_ILLEGAL_ADDRESS, "cuLaunchKernel");
    FAIL();
  } catch (const cuda::CudaError& e) {
    EXPECT_EQ(std::string(e.what()),
              "cuLaunchKernel: CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access was encountered)");
  }
}

TEST(CudaDevice, BadDeviceOrdinalThrows) {
  SKIP_WITHOUT_GPU();
  EXPECT_THROW(cuda::query_device(cuda::device_count() + 3), Error);
}

class BuiltinFill : public ::testing::Test {
 protected:
  void SetUp() override {
    if (cuda::device_count() == 0) GTEST_SKIP() << cuda::no_device_reason();
    context_ = std::make_unique<cuda::PrimaryContext>(0);
    context_->make_current();
    stream_ = cuda::Stream::create();
    const std::string arch = cuda::query_device(0).arch();
    kernels_ = BuiltinKernels(compile_builtin_kernels(cuda_include_dirs(), arch));
  }
  std::string run_fill(DType dtype, std::int64_t count, const FillSpec& spec, std::uint64_t seed) {
    cuda::DeviceMemory memory(count * size_of(dtype));
    kernels_.fill(stream_.get(), memory.get(), dtype, count, spec, seed);
    stream_.synchronize();
    std::string host(memory.bytes(), '\0');
    memory.download(host.data(), host.size());
    return host;
  }
  std::string run_poison(DType dtype, std::int64_t count) {
    cuda::DeviceMemory memory(count * size_of(dtype));
    kernels_.poison(stream_.get(), memory.get(), dtype, count);
    stream_.synchronize();
    std::string host(memory.bytes(), '\0');
    memory.download(host.data(), host.size());
    return host;
  }

  std::unique_ptr<cuda::PrimaryContext> context_;
  cuda::Stream stream_;
  BuiltinKernels kernels_;
};

TEST_F(BuiltinFill, SameSeedSameDataOtherSeedOtherData) {
  const FillSpec spec{FillSpec::Kind::random_uniform, -2.0, 3.0, 0.0};
  const std::int64_t n = 100003;
  const std::string a = run_fill(DType::f32, n, spec, 42);
  const std::string b = run_fill(DType::f32, n, spec, 42);
  const std::string c = run_fill(DType::f32, n, spec, 43);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  const std::vector<double> values = to_doubles(a.data(), DType::f32, n);
  double sum = 0;
  for (const double v : values) {
    ASSERT_GE(v, -2.0);
    ASSERT_LE(v, 3.0);
    sum += v;
  }
  EXPECT_NEAR(sum / n, 0.5, 0.05);
  EXPECT_GT(std::set<double>(values.begin(), values.end()).size(), static_cast<std::size_t>(n / 2));
}

TEST_F(BuiltinFill, EveryDTypeInRangeAndConstantFill) {
  const FillSpec uniform{FillSpec::Kind::random_uniform, -1.0, 1.0, 0.0};
  for (const DType dtype : {DType::f16, DType::bf16, DType::f64, DType::i32, DType::i64}) {
    const std::string bytes = run_fill(dtype, 4096, uniform, 7);
    const std::vector<double> values = to_doubles(bytes.data(), dtype, 4096);
    std::set<double> distinct(values.begin(), values.end());
    for (const double v : values) {
      ASSERT_GE(v, -1.0) << to_string(dtype);
      ASSERT_LE(v, 1.0) << to_string(dtype);
    }
    EXPECT_GE(distinct.size(), 3u) << to_string(dtype);
  }
  const FillSpec constant{FillSpec::Kind::constant, 0, 0, 3.0};
  for (const DType dtype : {DType::f16, DType::f32, DType::i32}) {
    const std::string bytes = run_fill(dtype, 1000, constant, 7);
    for (const double v : to_doubles(bytes.data(), dtype, 1000)) ASSERT_EQ(v, 3.0) << to_string(dtype);
  }
}

TEST_F(BuiltinFill, PoisonWritesTheNanPatterns) {
  const std::string half = run_poison(DType::f16, 3);
  std::uint16_t bits = 0;
  std::memcpy(&bits, half.data() + 2, 2);
  EXPECT_EQ(bits, 0x7e00);
  const std::string bf16 = run_poison(DType::bf16, 3);
  std::memcpy(&bits, bf16.data(), 2);
  EXPECT_EQ(bits, 0x7fc0);
  for (const DType dtype : {DType::f32, DType::f64}) {
    const std::string bytes = run_poison(dtype, 5);
    for (const double v : to_doubles(bytes.data(), dtype, 5)) EXPECT_TRUE(std::isnan(v)) << to_string(dtype);
  }
}

}  // namespace
}  // namespace evotune
