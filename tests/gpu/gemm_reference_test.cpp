// The GEMM reference kernel (kernels/gemm/gemm_ref.cu, fp32 on CUDA cores) against a float64 product on the
// host: both B layouts, bias, ReLU and GELU, sizes that are no multiple of its 64 x 64 tiles (N odd, M = 1),
// fp16 and bf16 inputs, D of the input type or fp32 (the _out_f32 spaces). The reference accumulates in fp32
// and rounds once to D's type; D starts as NaN, so an element it does not write fails.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>

#include "cuda/driver.hpp"
#include "eval/host_convert.hpp"
#include "space/search_space.hpp"
#include "support/reference_kernel.hpp"

namespace evotune {
namespace gemm_reference_test {

struct Case {
  const char* problem;
  const char* space = "search_spaces/gemm_wgmma.json";
};

class GemmReferenceKernel : public ::testing::TestWithParam<Case> {};

// A buffer of `count` values of `dtype` as bytes (`values`, or NaN where empty) and, rounded, as doubles.
std::vector<unsigned char> encode(const std::vector<double>& values, std::int64_t count, DType dtype,
                                  std::vector<double>* rounded) {
  std::vector<unsigned char> bytes;
  if (dtype == DType::f32) {
    std::vector<float> floats(static_cast<std::size_t>(count), NAN);
    for (std::size_t i = 0; i < values.size(); ++i) floats[i] = static_cast<float>(values[i]);
    bytes = test::as_bytes(floats);
  } else {
    const auto to_bits = dtype == DType::f16 ? double_to_half : double_to_bfloat16;
    std::vector<std::uint16_t> bits(static_cast<std::size_t>(count), to_bits(NAN));
    for (std::size_t i = 0; i < values.size(); ++i) bits[i] = to_bits(values[i]);
    bytes = test::as_bytes(bits);
  }
  if (rounded) *rounded = to_doubles(bytes.data(), dtype, count);
  return bytes;
}

TEST_P(GemmReferenceKernel, MatchesFloat64OnTheCpu) {
  if (cuda::device_count() == 0) GTEST_SKIP() << cuda::no_device_reason();
  const SearchSpace space = SearchSpace::load(GetParam().space);
  const Sizes sizes = space.resolve_problem(GetParam().problem);
  const cuda::PrimaryContext context(0);
  context.make_current();
  const std::int64_t m = sizes.at("M"), n = sizes.at("N"), k = sizes.at("K");
  const bool b_kmajor = sizes.at("B_KMAJOR") != 0, bias = sizes.at("BIAS") != 0;
  const std::int64_t act = sizes.at("ACT");

  std::map<std::string, DType> types;
  for (const BufferSpec& buffer : space.buffers(sizes)) types[buffer.name] = buffer.dtype;
  const DType input = types.at("A"), output = types.at("D");
  ASSERT_TRUE(input == DType::f16 || input == DType::bf16);
  ASSERT_EQ(types.at("B"), input);
  std::mt19937_64 rng(static_cast<std::uint64_t>(m * 131 + n * 17 + k));
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  const auto draw = [&](std::int64_t count) {
    std::vector<double> values(static_cast<std::size_t>(count));
    for (double& v : values) v = uniform(rng);
    return values;
  };
  std::vector<double> a, b, c;
  std::map<std::string, std::vector<unsigned char>> buffers;
  buffers["A"] = encode(draw(m * k), m * k, input, &a);
  buffers["B"] = encode(draw(k * n), k * n, input, &b);  // [K, N], or [N, K] with B_KMAJOR
  buffers["bias"] = encode(draw(n), n, input, &c);
  buffers["D"] = encode({}, m * n, output, nullptr);
  const std::vector<unsigned char> d_bytes = test::run_reference(space, sizes, buffers, "D");
  ASSERT_EQ(static_cast<std::int64_t>(d_bytes.size()), m * n * (output == DType::f32 ? 4 : 2));
  const std::vector<double> d = to_doubles(d_bytes.data(), output, m * n);

  double max_abs = 0, scale = 0, error_sq = 0, norm_sq = 0;
  std::int64_t non_finite = 0;
  for (std::int64_t row = 0; row < m; ++row)
    for (std::int64_t col = 0; col < n; ++col) {
      double sum = 0;
      for (std::int64_t i = 0; i < k; ++i)
        sum += a[row * k + i] * (b_kmajor ? b[col * k + i] : b[i * n + col]);
      if (bias) sum += c[col];
      if (act == 1) sum = std::max(sum, 0.0);
      if (act == 2) sum = 0.5 * sum * (1.0 + std::erf(sum / std::sqrt(2.0)));
      const double got = d[row * n + col];
      if (!std::isfinite(got)) {
        ++non_finite;
        continue;
      }
      max_abs = std::max(max_abs, std::abs(got - sum));
      scale = std::max(scale, std::abs(sum));
      error_sq += (got - sum) * (got - sum);
      norm_sq += sum * sum;
    }
  EXPECT_EQ(non_finite, 0) << "elements not written or not finite";
  const double rel_l2 = std::sqrt(error_sq / norm_sq), rel_max = max_abs / std::max(scale, 1.0);
  std::printf("gemm reference vs float64 (%s, %s in, %s out): max_abs %.3g of %.3g, rel_l2 %.3g\n",
              GetParam().problem, std::string(to_string(input)).c_str(),
              std::string(to_string(output)).c_str(), max_abs, scale, rel_l2);
  // One rounding to D's type after an fp32 sum: half an ulp is 2^-11 of a value in fp16, 2^-8 in bf16, and
  // the sum's own error (K fp32 additions, at most about K * 2^-24 of the largest partial sum, far less for
  // random signs) is what an fp32 D shows.
  const double limit = output == DType::f16 ? 1e-3 : output == DType::bf16 ? 4e-3 : 2e-5;
  EXPECT_LE(rel_l2, limit);
  EXPECT_LE(rel_max, 2 * limit);
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, GemmReferenceKernel,
    ::testing::Values(Case{"M=77,N=136,K=72,B_KMAJOR=0"}, Case{"M=300,N=200,K=520,B_KMAJOR=1,BIAS=1,ACT=1"},
                      Case{"M=129,N=65,K=1000,B_KMAJOR=0,BIAS=1,ACT=2"}, Case{"M=1,N=4096,K=64,B_KMAJOR=1"},
                      Case{"M=33,N=300,K=257,B_KMAJOR=1,BIAS=1,ACT=2", "search_spaces/gemm_wgmma_bf16.json"},
                      Case{"M=64,N=96,K=2048,B_KMAJOR=1,BIAS=1", "search_spaces/gemm_wgmma_out_f32.json"},
                      Case{"M=17,N=1001,K=300,B_KMAJOR=0,ACT=2", "search_spaces/gemm_wgmma_out_f32.json"},
                      Case{"M=65,N=127,K=500,B_KMAJOR=1,BIAS=1,ACT=1",
                           "search_spaces/gemm_wgmma_bf16_out_f32.json"}),
    [](const ::testing::TestParamInfo<Case>& info) {
      return test::problem_case_name(info.param.problem, info.param.space);
    });

}  // namespace gemm_reference_test
}  // namespace evotune
