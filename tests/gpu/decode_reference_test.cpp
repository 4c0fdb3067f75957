// The decode reference kernel (kernels/attention/decode_attn_ref.cu) against the float64 CPU computation of
// tests/support/decode_reference.hpp: contiguous and paged caches, grouped heads (g = 1, 4, 8), Sq = 1 and
// Sq > 1, causal and not, both head sizes and both 16-bit types, with cache lengths of 0, 1, fewer than Sq,
// not multiples of a page, and the full capacity. The page table is a shuffled pool with invalid entries past
// each sequence's last page, so a read past a length faults instead of passing.
#include "support/decode_reference.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "cuda/driver.hpp"
#include "eval/host_convert.hpp"
#include "space/search_space.hpp"
#include "support/attention_reference.hpp"
#include "support/reference_kernel.hpp"

namespace evotune {
namespace decode_reference_test {

struct Case {
  const char* problem;
  const char* space = "search_spaces/decode_attn.json";
};

class DecodeReferenceKernel : public ::testing::TestWithParam<Case> {};

// Lengths that exercise every edge: empty, one key, fewer than the queries, one past a page, the capacity.
std::vector<int> cache_lengths(const test::DecodeShape& shape, std::mt19937_64& rng) {
  const int skv = static_cast<int>(shape.skv);
  const std::vector<int> edges{skv,    0, 1, static_cast<int>(shape.sq) - 1, static_cast<int>(shape.page) + 1,
                               skv - 1};
  std::uniform_int_distribution<int> any(0, skv);
  std::vector<int> lengths;
  for (std::int64_t b = 0; b < shape.b; ++b)
    lengths.push_back(b < static_cast<std::int64_t>(edges.size()) ? std::clamp(edges[b], 0, skv) : any(rng));
  return lengths;
}

// A shuffled pool of b * max_pages pages; entries past a sequence's last page point far outside it.
std::vector<int> page_table(const test::DecodeShape& shape, const std::vector<int>& lengths,
                            std::mt19937_64& rng) {
  std::vector<int> pages(static_cast<std::size_t>(shape.b * shape.max_pages()));
  std::iota(pages.begin(), pages.end(), 0);
  std::shuffle(pages.begin(), pages.end(), rng);
  for (std::int64_t b = 0; b < shape.b; ++b)
    for (std::int64_t p = (lengths[b] + shape.page - 1) / shape.page; p < shape.max_pages(); ++p)
      pages[b * shape.max_pages() + p] = 1 << 30;
  return pages;
}

TEST_P(DecodeReferenceKernel, MatchesFloat64OnTheCpu) {
  if (cuda::device_count() == 0) GTEST_SKIP() << cuda::no_device_reason();
  const SearchSpace space = SearchSpace::load(GetParam().space);
  const Sizes sizes = space.resolve_problem(GetParam().problem);
  const cuda::PrimaryContext context(0);
  context.make_current();

  test::DecodeShape shape;
  shape.b = sizes.at("B");
  shape.hkv = sizes.at("HKV");
  shape.g = sizes.at("G");
  shape.sq = sizes.at("SQ");
  shape.skv = sizes.at("SKV");
  shape.d = sizes.at("D");
  shape.causal = sizes.at("CAUSAL") != 0;
  shape.paged = sizes.at("PAGED") != 0;
  shape.page = sizes.at("PAGE");
  std::mt19937_64 rng(shape.skv * 31 + shape.g);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  const std::vector<int> lengths = cache_lengths(shape, rng);
  const std::vector<int> table = shape.paged ? page_table(shape, lengths, rng) : std::vector<int>{0};

  const DType dtype = space.buffers(sizes).front().dtype;  // q's: f16 or bf16, like the caches and o
  ASSERT_TRUE(dtype == DType::f16 || dtype == DType::bf16);
  const auto to_bits = dtype == DType::f16 ? double_to_half : double_to_bfloat16;
  std::map<std::string, std::vector<unsigned char>> buffers;
  std::map<std::string, std::vector<double>> host;
  for (const BufferSpec& buffer : space.buffers(sizes)) {
    if (buffer.dtype == DType::i32) {
      const std::vector<int>& values = buffer.name == "cache_seqlens" ? lengths : table;
      ASSERT_EQ(static_cast<std::int64_t>(values.size()), buffer.count) << buffer.name;
      buffers[buffer.name] = test::as_bytes(values);
      continue;
    }
    ASSERT_EQ(buffer.dtype, dtype);
    std::vector<std::uint16_t> bits(buffer.count, to_bits(NAN));  // the output starts as NaN
    if (buffer.is_input)
      for (auto& b : bits) b = to_bits(uniform(rng));
    host[buffer.name] = to_doubles(bits.data(), dtype, buffer.count);
    buffers[buffer.name] = test::as_bytes(bits);
  }
  const std::vector<unsigned char> out_bytes = test::run_reference(space, sizes, buffers, "o");
  ASSERT_FALSE(out_bytes.empty());
  const std::vector<double> out =
      to_doubles(out_bytes.data(), dtype, static_cast<std::int64_t>(out_bytes.size() / 2));
  const std::vector<double> expected =
      test::decode_attention_float64(host["q"], host["k_cache"], host["v_cache"], lengths, table, shape);
  const test::AttentionError error = test::attention_error(out, expected);
  EXPECT_EQ(error.non_finite, 0) << "elements not written or not finite";
  std::printf("decode reference vs float64 (%s, %s): max_abs %.3g, rel_l2 %.3g\n", GetParam().problem,
              std::string(to_string(dtype)).c_str(), error.max_abs, error.rel_l2);
  // float64 arithmetic, one rounding to the element type: half an ulp of values below 1 is <= 2.5e-4 in fp16
  // and <= 2e-3 in bf16 (relative: 2^-11 and 2^-8, so the relative L2 error is up to about 3e-4 and 2.3e-3).
  const double limit = dtype == DType::f16 ? 1e-3 : 4e-3;
  EXPECT_LE(error.max_abs, limit);
  EXPECT_LE(error.rel_l2, limit);
  // The sequences of length 0 (and, causal, shorter than Sq: the rows that see no key) are exactly 0.
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(out.size()); ++i)
    if (expected[i] == 0.0) {
      ASSERT_EQ(out[i], 0.0) << "output " << i;
    }
}

INSTANTIATE_TEST_SUITE_P(Shapes, DecodeReferenceKernel,
                         ::testing::Values(Case{"B=6,HKV=2,G=4,SQ=1,SKV=300,D=128,CAUSAL=1,PAGED=0"},
                                           Case{"B=6,HKV=2,G=4,SQ=1,SKV=300,D=128,CAUSAL=1,PAGED=1,PAGE=16"},
                                           Case{"B=7,HKV=1,G=8,SQ=5,SKV=1000,D=128,CAUSAL=1,PAGED=1,PAGE=64"},
                                           Case{"B=6,HKV=3,G=1,SQ=16,SKV=517,D=64,CAUSAL=1,PAGED=0"},
                                           Case{"B=6,HKV=2,G=4,SQ=3,SKV=700,D=64,CAUSAL=0,PAGED=1,PAGE=256"},
                                           Case{"B=6,HKV=2,G=8,SQ=2,SKV=333,D=128,CAUSAL=1,PAGED=1,PAGE=16",
                                                "search_spaces/decode_attn_bf16.json"},
                                           Case{"B=6,HKV=1,G=4,SQ=1,SKV=4100,D=128,CAUSAL=0,PAGED=0",
                                                "search_spaces/decode_attn_bf16.json"}),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return test::problem_case_name(info.param.problem, info.param.space);
                         });

}  // namespace decode_reference_test
}  // namespace evotune
