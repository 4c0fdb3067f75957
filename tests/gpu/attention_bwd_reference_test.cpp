// The attention backward reference kernel (kernels/attention/flash_attn_bwd_ref.cu) against the float64 CPU
// backward of tests/support/attention_backward_reference.hpp: both head sizes, causal and not, grouped heads
// (g = 1, 4, 8), fewer and more queries than keys (rows that see no key), S = 1, both 16-bit types; O and LSE
// from the float64 forward (what the space derives), and also arbitrary O and LSE, since the reference is a
// function of its inputs. And the spaces' DerivedInputs kernel (O and LSE) against the float64 forward.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "cuda/driver.hpp"
#include "eval/host_convert.hpp"
#include "space/search_space.hpp"
#include "support/attention_backward_reference.hpp"
#include "support/reference_kernel.hpp"

namespace evotune {
namespace attention_bwd_reference_test {

const char* const kBwd = "search_spaces/flash_attn_bwd_wgmma.json";
const char* const kBwdBf16 = "search_spaces/flash_attn_bwd_wgmma_bf16.json";

struct Case {
  const char* problem;
  const char* space = kBwd;
  bool forward_inputs = true;  // O and LSE from the forward; false: random O in [-1, 1], LSE in [2, 4]
};

// The float64 references' shape of a problem of the backward spaces.
test::AttentionShape shape_of(const Sizes& sizes) {
  return {sizes.at("B"),   sizes.at("H"), sizes.at("HKV"),        sizes.at("S"),
          sizes.at("SKV"), sizes.at("D"), sizes.at("CAUSAL") != 0};
}

class AttentionBwdReference : public ::testing::TestWithParam<Case> {};

TEST_P(AttentionBwdReference, MatchesFloat64OnTheCpu) {
  if (cuda::device_count() == 0) GTEST_SKIP() << cuda::no_device_reason();
  const SearchSpace space = SearchSpace::load(GetParam().space);
  const Sizes sizes = space.resolve_problem(GetParam().problem);
  const cuda::PrimaryContext context(0);
  context.make_current();
  const test::AttentionShape shape = shape_of(sizes);

  std::mt19937_64 rng(static_cast<std::uint64_t>(shape.s * 31 + shape.skv * 7 + shape.heads));
  std::uniform_real_distribution<double> uniform(-1.0, 1.0), lse_range(2.0, 4.0);
  const DType dtype = space.buffers(sizes).front().dtype;  // f16 or bf16: Q, K, V, O, dO and the gradients
  ASSERT_TRUE(dtype == DType::f16 || dtype == DType::bf16);
  const auto to_bits = dtype == DType::f16 ? double_to_half : double_to_bfloat16;
  // Values of the element type, as bits and as the doubles they are.
  const auto elements = [&](std::int64_t count, const auto& value) {
    std::vector<std::uint16_t> bits(static_cast<std::size_t>(count));
    for (auto& b : bits) b = to_bits(value());
    return bits;
  };
  const auto doubles = [&](const std::vector<std::uint16_t>& bits) {
    return to_doubles(bits.data(), dtype, static_cast<std::int64_t>(bits.size()));
  };
  const std::int64_t q_count = shape.batch * shape.heads * shape.s * shape.d;
  const std::int64_t kv_count = shape.batch * shape.kv_heads * shape.skv * shape.d;
  const auto random = [&] { return uniform(rng); };
  const auto q = elements(q_count, random), k = elements(kv_count, random), v = elements(kv_count, random),
             d_o = elements(q_count, random);
  std::vector<std::uint16_t> o;
  std::vector<float> lse(static_cast<std::size_t>(shape.batch * shape.heads * shape.s));
  if (GetParam().forward_inputs) {
    const test::AttentionForward forward =
        test::attention_forward_float64(doubles(q), doubles(k), doubles(v), shape);
    o.resize(forward.o.size());
    for (std::size_t i = 0; i < o.size(); ++i) o[i] = to_bits(forward.o[i]);
    for (std::size_t i = 0; i < lse.size(); ++i) lse[i] = static_cast<float>(forward.lse[i]);
  } else {
    o = elements(q_count, random);
    for (auto& l : lse) l = static_cast<float>(lse_range(rng));
  }
  const std::vector<std::uint16_t> nan_q(static_cast<std::size_t>(q_count), to_bits(NAN)),
      nan_kv(static_cast<std::size_t>(kv_count), to_bits(NAN));
  const std::map<std::string, std::vector<unsigned char>> buffers{
      {"Q", test::as_bytes(q)},      {"K", test::as_bytes(k)},       {"V", test::as_bytes(v)},
      {"O", test::as_bytes(o)},      {"dO", test::as_bytes(d_o)},    {"LSE", test::as_bytes(lse)},
      {"dQ", test::as_bytes(nan_q)}, {"dK", test::as_bytes(nan_kv)}, {"dV", test::as_bytes(nan_kv)}};
  const auto out = test::run_reference_outputs(space, sizes, buffers, {"dQ", "dK", "dV"});
  ASSERT_EQ(out.size(), 3u);

  std::vector<double> lse_doubles(lse.begin(), lse.end());
  const test::AttentionGradients expected = test::attention_backward_float64(
      doubles(q), doubles(k), doubles(v), doubles(o), doubles(d_o), lse_doubles, shape);
  // float64 arithmetic on the inputs, the result rounded to the element type: half an ulp is 2^-11 of the
  // value in fp16, 2^-8 in bf16.
  const double relative = dtype == DType::f16 ? 1e-3 : 4e-3;
  for (const auto& [name, reference] :
       {std::pair{"dQ", &expected.dq}, std::pair{"dK", &expected.dk}, std::pair{"dV", &expected.dv}}) {
    const auto& bytes = out.at(name);
    const std::vector<double> got =
        to_doubles(bytes.data(), dtype, static_cast<std::int64_t>(bytes.size() / 2));
    const test::AttentionError error = test::attention_error(got, *reference);
    double largest = 0;
    for (const double x : *reference) largest = std::max(largest, std::fabs(x));
    std::printf("backward reference vs float64 (%s, %s, %s): max_abs %.3g of %.3g, rel_l2 %.3g\n",
                GetParam().problem, std::string(to_string(dtype)).c_str(), name, error.max_abs, largest,
                error.rel_l2);
    EXPECT_EQ(error.non_finite, 0) << name << ": elements not written or not finite";
    EXPECT_LE(error.max_abs, relative * std::max(1.0, largest)) << name;
    EXPECT_LE(error.rel_l2, relative) << name;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, AttentionBwdReference,
    ::testing::Values(Case{"B=1,H=2,S=77,D=64,CAUSAL=0"}, Case{"B=2,H=1,S=130,D=64,CAUSAL=1"},
                      Case{"B=1,H=2,S=96,D=128,CAUSAL=0"}, Case{"B=1,H=1,S=200,D=128,CAUSAL=1"},
                      Case{"B=1,H=1,S=1,D=64,CAUSAL=1"},
                      // grouped heads, causal bottom-right both ways (rows that see no key)
                      Case{"B=2,H=4,HKV=1,S=77,SKV=200,D=64,CAUSAL=1"},
                      Case{"B=2,H=8,HKV=2,S=200,SKV=77,D=64,CAUSAL=1"},
                      Case{"B=1,H=8,HKV=1,S=130,SKV=333,D=128,CAUSAL=0"},
                      Case{"B=1,H=8,HKV=1,S=300,SKV=40,D=128,CAUSAL=1"},
                      // many 32-row blocks and 32-row chunks, ragged at both ends
                      Case{"B=1,H=4,HKV=2,S=513,SKV=700,D=128,CAUSAL=1"}, Case{"B=2,H=2,S=450,D=64,CAUSAL=0"},
                      // arbitrary O and LSE: the same function of its inputs
                      Case{"B=1,H=4,HKV=1,S=100,SKV=150,D=64,CAUSAL=1", kBwd, false},
                      Case{"B=1,H=2,S=65,D=128,CAUSAL=0", kBwd, false},
                      // bf16
                      Case{"B=1,H=2,S=77,D=64,CAUSAL=1", kBwdBf16},
                      Case{"B=1,H=8,HKV=2,S=150,SKV=90,D=128,CAUSAL=1", kBwdBf16}),
    [](const ::testing::TestParamInfo<Case>& info) {
      return test::problem_case_name(info.param.problem, info.param.space) +
             (info.param.forward_inputs ? "" : "_any_o_lse");
    });

// The backward spaces' DerivedInputs kernel (kernels/attention/flash_attn_ref_blocked.cu: O and LSE from Q, K
// and V, four rows a warp, 32 a block) against the float64 forward on the CPU: partial blocks and chunks,
// causal both ways with rows that see no key (O = 0, LSE = 0), grouped heads, both head sizes and types.
class AttentionBwdDerivedInputs : public ::testing::TestWithParam<Case> {};

TEST_P(AttentionBwdDerivedInputs, MatchTheFloat64ForwardOnTheCpu) {
  if (cuda::device_count() == 0) GTEST_SKIP() << cuda::no_device_reason();
  const SearchSpace space = SearchSpace::load(GetParam().space);
  const Sizes sizes = space.resolve_problem(GetParam().problem);
  const cuda::PrimaryContext context(0);
  context.make_current();
  const test::AttentionShape shape = shape_of(sizes);
  std::mt19937_64 rng(static_cast<std::uint64_t>(shape.s * 17 + shape.skv * 5 + shape.heads));
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  const DType dtype = space.buffers(sizes).front().dtype;
  ASSERT_TRUE(dtype == DType::f16 || dtype == DType::bf16);
  const auto to_bits = dtype == DType::f16 ? double_to_half : double_to_bfloat16;
  const auto elements = [&](std::int64_t count) {
    std::vector<std::uint16_t> bits(static_cast<std::size_t>(count));
    for (auto& b : bits) b = to_bits(uniform(rng));
    return bits;
  };
  const auto doubles = [&](const std::vector<std::uint16_t>& bits) {
    return to_doubles(bits.data(), dtype, static_cast<std::int64_t>(bits.size()));
  };
  const std::int64_t q_count = shape.batch * shape.heads * shape.s * shape.d;
  const std::int64_t kv_count = shape.batch * shape.kv_heads * shape.skv * shape.d;
  const auto q = elements(q_count), k = elements(kv_count), v = elements(kv_count);
  const std::vector<std::uint16_t> nan_o(static_cast<std::size_t>(q_count), to_bits(NAN));
  const std::vector<float> nan_lse(static_cast<std::size_t>(shape.batch * shape.heads * shape.s), NAN);
  const auto out = test::run_derived_inputs_outputs(space, sizes,
                                                    {{"Q", test::as_bytes(q)},
                                                     {"K", test::as_bytes(k)},
                                                     {"V", test::as_bytes(v)},
                                                     {"O", test::as_bytes(nan_o)},
                                                     {"LSE", test::as_bytes(nan_lse)}},
                                                    {"O", "LSE"});
  ASSERT_EQ(out.size(), 2u);
  const test::AttentionForward expected =
      test::attention_forward_float64(doubles(q), doubles(k), doubles(v), shape);

  const auto& o_bytes = out.at("O");
  const test::AttentionError o_error = test::attention_error(
      to_doubles(o_bytes.data(), dtype, static_cast<std::int64_t>(o_bytes.size() / 2)), expected.o);
  const auto& lse_bytes = out.at("LSE");
  const test::AttentionError lse_error = test::attention_error(
      to_doubles(lse_bytes.data(), DType::f32, static_cast<std::int64_t>(lse_bytes.size() / 4)),
      expected.lse);
  std::printf("derived inputs vs float64 (%s): O max_abs %.3g rel_l2 %.3g, LSE max_abs %.3g\n",
              GetParam().problem, o_error.max_abs, o_error.rel_l2, lse_error.max_abs);
  // float64 arithmetic, O rounded to the element type (|O| <= 1: half an ulp), LSE to float (|LSE| < 16).
  const double o_tolerance = dtype == DType::f16 ? 1e-3 : 4e-3;
  EXPECT_EQ(o_error.non_finite, 0) << "O: elements not written or not finite";
  EXPECT_EQ(lse_error.non_finite, 0) << "LSE: elements not written or not finite";
  EXPECT_LE(o_error.max_abs, o_tolerance);
  EXPECT_LE(o_error.rel_l2, o_tolerance);
  EXPECT_LE(lse_error.max_abs, 4e-6);
}

INSTANTIATE_TEST_SUITE_P(Shapes, AttentionBwdDerivedInputs,
                         ::testing::Values(Case{"B=1,H=2,S=77,D=64,CAUSAL=0"},
                                           Case{"B=2,H=1,S=130,D=64,CAUSAL=1"},
                                           Case{"B=1,H=2,S=96,D=128,CAUSAL=0"},
                                           Case{"B=1,H=1,S=1,D=64,CAUSAL=1"},
                                           Case{"B=2,H=4,HKV=1,S=77,SKV=200,D=64,CAUSAL=1"},
                                           Case{"B=2,H=8,HKV=2,S=200,SKV=77,D=64,CAUSAL=1"},
                                           Case{"B=1,H=8,HKV=1,S=300,SKV=40,D=128,CAUSAL=1"},
                                           Case{"B=1,H=4,HKV=2,S=513,SKV=700,D=128,CAUSAL=1"},
                                           Case{"B=1,H=2,S=77,D=64,CAUSAL=1", kBwdBf16},
                                           Case{"B=1,H=8,HKV=2,S=150,SKV=90,D=128,CAUSAL=1", kBwdBf16}),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return test::problem_case_name(info.param.problem, info.param.space);
                         });

}  // namespace attention_bwd_reference_test
}  // namespace evotune
