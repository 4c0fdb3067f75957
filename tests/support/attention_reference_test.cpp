// The float64 attention reference (attention_reference.hpp) with grouped K/V heads and query and key lengths
// that differ: small cases checked by hand (keys of zeros make every score 0, so a row is the mean of the
// values it sees), and grouped heads against the same keys repeated for every query head.
#include "support/attention_reference.hpp"

#include <gtest/gtest.h>

#include <random>

namespace evotune::test {
namespace {

std::vector<double> random_values(std::size_t count, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::vector<double> values(count);
  for (auto& v : values) v = uniform(rng);
  return values;
}

// One head, d = 2, keys of zeros: value row j is (j + 1, 10 (j + 1)).
std::vector<double> mean_case(const AttentionShape& shape) {
  const std::vector<double> q(static_cast<std::size_t>(shape.s * shape.d), 0.5);
  const std::vector<double> k(static_cast<std::size_t>(shape.skv * shape.d), 0.0);
  std::vector<double> v;
  for (std::int64_t j = 0; j < shape.skv; ++j) v.insert(v.end(), {j + 1.0, 10.0 * (j + 1)});
  return attention_float64(q, k, v, shape);
}

TEST(AttentionReference, CausalFewerQueriesThanKeysIsAlignedToTheBottomRight) {
  // s = 2, skv = 3: query 0 sees keys 0..1, query 1 sees keys 0..2.
  const auto out = mean_case({1, 1, 1, 2, 3, 2, true});
  const std::vector<double> expected{1.5, 15.0, 2.0, 20.0};
  ASSERT_EQ(out.size(), expected.size());
  for (std::size_t i = 0; i < out.size(); ++i) EXPECT_NEAR(out[i], expected[i], 1e-12) << i;
}

TEST(AttentionReference, CausalMoreQueriesThanKeysLeavesTheFirstRowsZero) {
  // s = 4, skv = 2: queries 0 and 1 see no key (0, never NaN), query 2 sees key 0, query 3 keys 0..1.
  const auto out = mean_case({1, 1, 1, 4, 2, 2, true});
  const std::vector<double> expected{0, 0, 0, 0, 1.0, 10.0, 1.5, 15.0};
  ASSERT_EQ(out.size(), expected.size());
  for (std::size_t i = 0; i < out.size(); ++i) EXPECT_NEAR(out[i], expected[i], 1e-12) << i;
}

TEST(AttentionReference, WithoutTheMaskEveryQuerySeesEveryKey) {
  for (const std::int64_t s : {1, 2, 5}) {
    const auto out = mean_case({1, 1, 1, s, 3, 2, false});
    for (std::int64_t i = 0; i < s; ++i) {
      EXPECT_NEAR(out[2 * i], 2.0, 1e-12);
      EXPECT_NEAR(out[2 * i + 1], 20.0, 1e-12);
    }
  }
}

TEST(AttentionReference, EqualLengthsMeanWhatTheyDid) {
  std::mt19937_64 rng(11);
  const std::int64_t heads = 3, s = 7, d = 8;
  const auto q = random_values(heads * s * d, rng), k = random_values(q.size(), rng),
             v = random_values(q.size(), rng);
  for (const bool causal : {false, true}) {
    const auto shaped = attention_float64(q, k, v, AttentionShape{1, heads, heads, s, s, d, causal});
    const auto plain = attention_float64(q, k, v, heads, s, d, causal);
    EXPECT_EQ(shaped, plain);
    // Causal with s == skv: query 0 sees key 0 alone, so its row is value row 0.
    if (causal) {
      for (std::int64_t c = 0; c < d; ++c) EXPECT_NEAR(shaped[c], v[c], 1e-12);
    }
  }
}

TEST(AttentionReference, CausalLastQuerySeesEveryKey) {
  std::mt19937_64 rng(13);
  for (const auto& [s, skv] : {std::pair<std::int64_t, std::int64_t>{3, 10}, {10, 3}, {1, 1}, {5, 6}}) {
    const std::int64_t d = 4;
    const auto q = random_values(s * d, rng), k = random_values(skv * d, rng),
               v = random_values(k.size(), rng);
    const auto causal = attention_float64(q, k, v, AttentionShape{1, 1, 1, s, skv, d, true});
    const auto full = attention_float64(q, k, v, AttentionShape{1, 1, 1, s, skv, d, false});
    for (std::int64_t c = 0; c < d; ++c) EXPECT_NEAR(causal[(s - 1) * d + c], full[(s - 1) * d + c], 1e-12);
  }
}

// Grouped heads read the K/V head of their group: the same as every query head having its own copy of it.
TEST(AttentionReference, GroupedHeadsReadTheirGroupsKvHead) {
  for (const std::int64_t group : {1, 4, 8}) {
    for (const bool causal : {false, true}) {
      std::mt19937_64 rng(static_cast<std::uint64_t>(group) + 100);
      AttentionShape shape{2, 2 * group, 2, 5, 9, 8, causal};
      const auto q = random_values(shape.batch * shape.heads * shape.s * shape.d, rng);
      const auto k = random_values(shape.batch * shape.kv_heads * shape.skv * shape.d, rng);
      const auto v = random_values(k.size(), rng);
      const std::int64_t row = shape.skv * shape.d;
      std::vector<double> k_full, v_full;  // [batch][heads][skv][d]
      for (std::int64_t b = 0; b < shape.batch; ++b)
        for (std::int64_t h = 0; h < shape.heads; ++h) {
          const std::int64_t from = (b * shape.kv_heads + h / group) * row;
          k_full.insert(k_full.end(), k.begin() + from, k.begin() + from + row);
          v_full.insert(v_full.end(), v.begin() + from, v.begin() + from + row);
        }
      AttentionShape ungrouped = shape;
      ungrouped.kv_heads = shape.heads;
      const auto grouped = attention_float64(q, k, v, shape);
      const auto repeated = attention_float64(q, k_full, v_full, ungrouped);
      ASSERT_EQ(grouped.size(), repeated.size());
      for (std::size_t i = 0; i < grouped.size(); ++i)
        ASSERT_EQ(grouped[i], repeated[i]) << "group " << group << ", causal " << causal << ", element " << i;
      // Different heads of one group see the same keys, not the same output (their queries differ).
      EXPECT_NE(grouped[0], grouped[static_cast<std::size_t>(shape.s * shape.d)]);
    }
  }
}

}  // namespace
}  // namespace evotune::test
