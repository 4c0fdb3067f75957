// The attention reference kernels against a float64 CPU computation, on ragged, causal and both head sizes:
// O, and where the space has it (the grouped reference of the wgmma spaces) each row's log-sum-exp LSE, rows
// that see no key (causal, S > SKV) among them.
#include "support/attention_reference.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "cuda/driver.hpp"
#include "eval/host_convert.hpp"
#include "space/search_space.hpp"
#include "support/reference_kernel.hpp"

namespace evotune {
namespace attention_reference_test {

const char* const kWgmma = "search_spaces/flash_attn_fwd_wgmma.json";
const char* const kWgmmaBf16 = "search_spaces/flash_attn_fwd_wgmma_bf16.json";

struct Case {
  const char* problem;
  const char* space = "search_spaces/flash_attn_fwd.json";
};

class AttentionReference : public ::testing::TestWithParam<Case> {};

TEST_P(AttentionReference, MatchesFloat64OnTheCpu) {
  if (cuda::device_count() == 0) GTEST_SKIP() << cuda::no_device_reason();
  const SearchSpace space = SearchSpace::load(GetParam().space);
  const Sizes sizes = space.resolve_problem(GetParam().problem);
  const cuda::PrimaryContext context(0);
  context.make_current();

  std::mt19937_64 rng(GetParam().problem[0] + 17);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::map<std::string, std::vector<unsigned char>> buffers;
  std::map<std::string, std::vector<double>> host;
  const DType dtype = space.buffers(sizes).front().dtype;  // f16 or bf16, the same for Q, K, V, O
  ASSERT_TRUE(dtype == DType::f16 || dtype == DType::bf16);
  const auto to_bits = dtype == DType::f16 ? double_to_half : double_to_bfloat16;
  std::vector<std::string> outputs{"O"};
  for (const BufferSpec& buffer : space.buffers(sizes)) {
    if (buffer.name == "LSE") {  // fp32 [B, H, S], starting as NaN
      ASSERT_EQ(buffer.dtype, DType::f32);
      ASSERT_FALSE(buffer.is_input);
      buffers[buffer.name] = test::as_bytes(std::vector<float>(buffer.count, NAN));
      outputs.push_back(buffer.name);
      continue;
    }
    ASSERT_EQ(buffer.dtype, dtype);
    std::vector<std::uint16_t> bits(buffer.count, to_bits(NAN));  // outputs start as NaN
    if (buffer.is_input)
      for (auto& b : bits) b = to_bits(uniform(rng));
    host[buffer.name] = to_doubles(bits.data(), dtype, buffer.count);
    buffers[buffer.name] = test::as_bytes(bits);
  }
  const auto results = test::run_reference_outputs(space, sizes, buffers, outputs);
  ASSERT_EQ(results.size(), outputs.size());
  const std::vector<unsigned char>& out_bytes = results.at("O");
  const std::vector<double> out =
      to_doubles(out_bytes.data(), dtype, static_cast<std::int64_t>(out_bytes.size() / 2));
  // Spaces without grouped heads or a key length of their own have K/V of Q's shape.
  const auto size_or = [&](const char* name, const char* fallback) {
    return sizes.count(name) ? sizes.at(name) : sizes.at(fallback);
  };
  const test::AttentionShape shape{sizes.at("B"),       sizes.at("H"), size_or("HKV", "H"),    sizes.at("S"),
                                   size_or("SKV", "S"), sizes.at("D"), sizes.at("CAUSAL") != 0};
  const test::AttentionOutputs expected_outputs =
      test::attention_forward_float64(host["Q"], host["K"], host["V"], shape);
  const std::vector<double>& expected = expected_outputs.o;
  const test::AttentionError error = test::attention_error(out, expected);
  EXPECT_EQ(error.non_finite, 0) << "elements not written or not finite";
  std::printf("reference vs float64 (%s, %s): max_abs %.3g, rel_l2 %.3g\n", GetParam().problem,
              std::string(to_string(dtype)).c_str(), error.max_abs, error.rel_l2);
  // fp32 (flash_attn_ref.cu) or fp64 (the grouped reference) arithmetic on the inputs, output rounded to the
  // element type: half an ulp of values below 1 is <= 2.5e-4 in fp16 and <= 2e-3 in bf16.
  const double limit = dtype == DType::f16 ? 1e-3 : 4e-3;
  EXPECT_LE(error.max_abs, limit);
  EXPECT_LE(error.rel_l2, limit);

  if (!results.count("LSE")) return;  // flash_attn_ref.cu and the mma spaces write O alone
  const std::vector<unsigned char>& lse_bytes = results.at("LSE");
  const std::vector<double> lse =
      to_doubles(lse_bytes.data(), DType::f32, static_cast<std::int64_t>(lse_bytes.size() / 4));
  ASSERT_EQ(lse.size(), expected_outputs.lse.size());
  const test::AttentionError lse_error = test::attention_error(lse, expected_outputs.lse);
  EXPECT_EQ(lse_error.non_finite, 0) << "LSE elements not written or not finite";
  std::printf("reference LSE vs float64 (%s): max_abs %.3g\n", GetParam().problem, lse_error.max_abs);
  // fp64 arithmetic, rounded once to fp32: half an ulp of |LSE| < 16 is below 1e-6.
  EXPECT_LE(lse_error.max_abs, 1e-5);
  // A row that sees no key (causal, S > SKV) has LSE 0 exactly.
  for (std::size_t i = 0; i < lse.size(); ++i) {
    if (shape.causal && static_cast<std::int64_t>(i) % shape.s + shape.skv - shape.s < 0) {
      EXPECT_EQ(lse[i], 0.0) << "row " << i << " sees no key";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, AttentionReference,
    ::testing::Values(
        Case{"B=1,H=2,S=77,D=64,CAUSAL=0"}, Case{"B=2,H=1,S=130,D=64,CAUSAL=1"},
        Case{"B=1,H=2,S=96,D=128,CAUSAL=0"}, Case{"B=1,H=1,S=200,D=128,CAUSAL=1"},
        Case{"B=1,H=8,S=512,D=64,CAUSAL=0"},
        Case{"B=1,H=2,S=77,D=64,CAUSAL=1", "search_spaces/flash_attn_fwd_mma_bf16.json"},
        Case{"B=1,H=2,S=96,D=128,CAUSAL=0", "search_spaces/flash_attn_fwd_mma_bf16.json"},
        // The grouped reference (the wgmma spaces'): g = 1, 4, 8, causal bottom-right both ways.
        Case{"B=2,H=4,HKV=4,S=77,SKV=200,D=64,CAUSAL=1", kWgmma},
        Case{"B=2,H=8,HKV=2,S=200,SKV=77,D=64,CAUSAL=1", kWgmma},
        Case{"B=1,H=8,HKV=1,S=130,SKV=333,D=128,CAUSAL=0", kWgmma},
        Case{"B=1,H=8,HKV=1,S=300,SKV=40,D=128,CAUSAL=1", kWgmmaBf16}),
    [](const ::testing::TestParamInfo<Case>& info) {
      return test::problem_case_name(info.param.problem, info.param.space) +
             (std::string(info.param.space).find("wgmma") != std::string::npos ? "_grouped_ref" : "");
    });

}  // namespace attention_reference_test
}  // namespace evotune
