// Driver wrappers on a real GPU: device query, error texts, evotune's builtin kernels (fill, poison, and the
// comparisons checked against the host's rules).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <set>

#include "compile/compiler.hpp"
#include "cuda/resources.hpp"
#include "eval/builtin_kernels.hpp"
#include "eval/compare.hpp"
#include "eval/host_convert.hpp"

namespace evotune {
namespace cuda_test {

#define SKIP_WITHOUT_GPU() \
  if (cuda::device_count() == 0) GTEST_SKIP() << cuda::no_device_reason()

TEST(CudaDevice, QueryIsSane) {
  SKIP_WITHOUT_GPU();
  const DeviceInfo info = cuda::query_device(0);
  std::printf("device: %s sm_%d%d, %d SMs, L2 %lld B, smem opt-in %d B, driver %d\n", info.name.c_str(),
              info.cc_major, info.cc_minor, info.sm_count, static_cast<long long>(info.l2_bytes),
              info.max_smem_per_block, info.driver_version);
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

  cuda::DeviceMemory upload(const std::string& bytes) {
    cuda::DeviceMemory memory(bytes.size());
    memory.upload(bytes.data(), bytes.size());
    return memory;
  }
  std::vector<std::uint64_t> run_tally(bool compare, DType dtype, const std::string& a,
                                       const std::string& b) {
    const cuda::DeviceMemory first = upload(a);
    const cuda::DeviceMemory second = upload(b);
    std::vector<std::uint64_t> tally{0, compare ? 0 : ~std::uint64_t{0}, 0, 0};
    const cuda::DeviceMemory result = upload(std::string(reinterpret_cast<const char*>(tally.data()), 32));
    const std::int64_t count = static_cast<std::int64_t>(a.size() / size_of(dtype));
    if (compare)
      kernels_.compare(stream_.get(), first.get(), second.get(), dtype, count, result.get());
    else
      kernels_.differ(stream_.get(), first.get(), second.get(), dtype, count, result.get());
    stream_.synchronize();
    result.download(tally.data(), 32);
    return tally;
  }

  std::unique_ptr<cuda::PrimaryContext> context_;
  cuda::Stream stream_;
  BuiltinKernels kernels_;
};

// Element bytes of `values` as dtype, with the non-finite values the comparison rules care about.
std::string as_bytes(const std::vector<double>& values, DType dtype) {
  std::string bytes;
  for (const double v : values) bytes += scalar_bytes(v, dtype);
  return bytes;
}

TEST_F(BuiltinFill, DeviceComparisonMatchesTheHostRules) {
  // Random data plus every non-finite case: matching NaN/Inf, NaN for a number, a number for an Inf.
  std::vector<double> reference, output;
  for (int i = 0; i < 70000; ++i) {
    const double v = std::sin(0.37 * i) * (1 + i % 7);
    reference.push_back(v);
    output.push_back(v + ((i % 13 == 0) ? 0.01 * std::cos(i) : 0.0));
  }
  const std::vector<std::pair<double, double>> cases{{NAN, NAN}, {INFINITY, INFINITY}, {-INFINITY, INFINITY},
                                                     {1.0, NAN}, {INFINITY, 2.0},      {3.0, -INFINITY}};
  for (const auto& [ref, out] : cases) {
    reference.push_back(ref);
    output.push_back(out);
  }
  for (const DType dtype : {DType::f16, DType::bf16, DType::f32, DType::f64}) {
    const std::string ref_bytes = as_bytes(reference, dtype);
    const std::string out_bytes = as_bytes(output, dtype);
    const std::int64_t n = static_cast<std::int64_t>(reference.size());
    const ErrorStats host =
        compare_outputs(to_doubles(ref_bytes.data(), dtype, n), to_doubles(out_bytes.data(), dtype, n));
    const auto tally = run_tally(true, dtype, ref_bytes, out_bytes);
    const ErrorStats device =
        error_stats(std::bit_cast<double>(tally[0]), std::bit_cast<double>(tally[1]),
                    std::bit_cast<double>(tally[2]), static_cast<std::int64_t>(tally[3]), n);
    EXPECT_EQ(device.max_abs, host.max_abs) << to_string(dtype);
    EXPECT_NEAR(device.rel_l2, host.rel_l2, 1e-12 * host.rel_l2) << to_string(dtype);
    EXPECT_EQ(device.non_finite, host.non_finite) << to_string(dtype);
    EXPECT_EQ(device.non_finite, 3) << to_string(dtype);          // -Inf for Inf, NaN for 1, -Inf for 3
    EXPECT_TRUE(std::isinf(device.max_abs)) << to_string(dtype);  // 2 where the reference is Inf
  }
  const std::string ints = as_bytes({1, 2, 3, 4}, DType::i32);
  const auto tally = run_tally(true, DType::i32, ints, as_bytes({1, 2, 3, 6}, DType::i32));
  EXPECT_EQ(std::bit_cast<double>(tally[0]), 2.0);
  EXPECT_EQ(std::bit_cast<double>(tally[1]), 4.0);
  EXPECT_EQ(std::bit_cast<double>(tally[2]), 30.0);
}

TEST_F(BuiltinFill, DeviceBitwiseDifferenceCountsAndFindsTheFirst) {
  std::vector<double> a(50000, 1.5);
  std::vector<double> b = a;
  b[40001] = 1.5000001;
  b[777] = -0.0;
  a[777] = 0.0;  // equal as numbers, not as bits
  b[49999] = NAN;
  for (const DType dtype : {DType::f32, DType::f64}) {
    const auto tally = run_tally(false, dtype, as_bytes(a, dtype), as_bytes(b, dtype));
    EXPECT_EQ(tally[0], 3u) << to_string(dtype);
    EXPECT_EQ(tally[1], 777u) << to_string(dtype);
  }
  const auto same = run_tally(false, DType::f16, as_bytes(a, DType::f16), as_bytes(a, DType::f16));
  EXPECT_EQ(same[0], 0u);
  EXPECT_EQ(same[1], ~std::uint64_t{0});
}

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

}  // namespace cuda_test
}  // namespace evotune
