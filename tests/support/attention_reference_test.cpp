// The float64 attention reference (attention_reference.hpp) with grouped K/V heads and query and key lengths
// that differ: small cases checked by hand (keys of zeros make every score 0, so a row is the mean of the
// values it sees; keys whose scores are logs make each row's log-sum-exp a log of a sum of integers), the
// log-sum-exp as the softmax's normaliser and far past exp's range, and grouped heads against the same keys
// repeated for every query head.
#include "support/attention_reference.hpp"

#include <gtest/gtest.h>

#include <random>

#include "support/random_values.hpp"

namespace evotune::test {
namespace attention_reference_test {

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

// One head, d = 2, query rows (sqrt 2, 0) and key rows (ln(j + first), 0): the score of key j is
// ln(j + first), so a row that sees keys 0..n-1 has LSE = ln(first + ... + first + n - 1).
AttentionOutputs log_case(const AttentionShape& shape, double first) {
  std::vector<double> q, k, v;
  for (std::int64_t i = 0; i < shape.s; ++i) q.insert(q.end(), {std::sqrt(2.0), 0.0});
  for (std::int64_t j = 0; j < shape.skv; ++j) {
    k.insert(k.end(), {std::log(j + first), 0.0});
    v.insert(v.end(), {1.0, 0.0});
  }
  return attention_forward_float64(q, k, v, shape);
}

TEST(AttentionReference, LogSumExpOfLoggedScoresIsTheLogOfTheirSum) {
  // Without the mask every row sees keys 0..3: e^score = 1, 2, 3, 4.
  const auto full = log_case({1, 1, 1, 2, 4, 2, false}, 1.0);
  ASSERT_EQ(full.lse.size(), 2u);
  for (const double lse : full.lse) EXPECT_NEAR(lse, std::log(10.0), 1e-12);
  // Causal, s = 3, skv = 4: row i sees keys 0..i + 1, so sums 1 + 2, + 3, + 4.
  const auto causal = log_case({1, 1, 1, 3, 4, 2, true}, 1.0);
  const std::vector<double> expected{std::log(3.0), std::log(6.0), std::log(10.0)};
  ASSERT_EQ(causal.lse.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) EXPECT_NEAR(causal.lse[i], expected[i], 1e-12) << i;
}

TEST(AttentionReference, ARowThatSeesNoKeyHasLogSumExpZero) {
  // Causal, s = 4, skv = 2, e^score = 2, 3: row 0 sees no key (LSE 0, O 0, never NaN), row 1 none either,
  // row 2 key 0 (ln 2), row 3 keys 0..1 (ln 5).
  const auto out = log_case({1, 1, 1, 4, 2, 2, true}, 2.0);
  const std::vector<double> expected{0.0, 0.0, std::log(2.0), std::log(5.0)};
  ASSERT_EQ(out.lse.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) EXPECT_NEAR(out.lse[i], expected[i], 1e-12) << i;
  EXPECT_EQ(out.o[0], 0.0);
  EXPECT_EQ(out.o[2], 0.0);
  EXPECT_NEAR(out.o[4], 1.0, 1e-12);  // every value row is (1, 0)
  // Keys of zeros: every score 0, so a row's LSE is the log of how many keys it sees.
  const std::vector<double> zeros_q(8, 0.5), zeros_k(4, 0.0), values(4, 1.0);
  const auto zeros = attention_forward_float64(zeros_q, zeros_k, values, {1, 1, 1, 4, 2, 2, true});
  EXPECT_EQ(zeros.lse, (std::vector<double>{0.0, 0.0, 0.0, std::log(2.0)}));
}

// The LSE is the softmax's normaliser: sum_j e^(score_j - LSE) = 1 over the keys a row sees, also with scores
// past exp's range (inputs of +-40: scores of hundreds to over a thousand), where a plain sum of exponentials
// overflows even in double.
TEST(AttentionReference, LogSumExpNormalisesEveryRow) {
  for (const double range : {1.0, 40.0}) {
    for (const bool causal : {false, true}) {
      std::mt19937_64 rng(static_cast<std::uint64_t>(range) + 7);
      const AttentionShape shape{2, 4, 2, 9, 13, 64, causal};
      auto q = random_values(shape.batch * shape.heads * shape.s * shape.d, rng);
      auto k = random_values(shape.batch * shape.kv_heads * shape.skv * shape.d, rng);
      for (auto& x : q) x *= range;
      for (auto& x : k) x *= range;
      const auto v = random_values(k.size(), rng);
      const auto out = attention_forward_float64(q, k, v, shape);
      ASSERT_EQ(out.lse.size(), static_cast<std::size_t>(shape.batch * shape.heads * shape.s));
      EXPECT_EQ(out.o, attention_float64(q, k, v, shape));
      double largest = 0;
      for (std::int64_t b = 0; b < shape.batch; ++b)
        for (std::int64_t h = 0; h < shape.heads; ++h)
          for (std::int64_t i = 0; i < shape.s; ++i) {
            const double lse = out.lse[(b * shape.heads + h) * shape.s + i];
            const std::int64_t kv = b * shape.kv_heads + h / (shape.heads / shape.kv_heads);
            double total = 0, top = -INFINITY;
            for (std::int64_t j = 0; j <= (causal ? i + shape.skv - shape.s : shape.skv - 1); ++j) {
              double dot = 0;
              for (std::int64_t c = 0; c < shape.d; ++c)
                dot += q[((b * shape.heads + h) * shape.s + i) * shape.d + c] *
                       k[(kv * shape.skv + j) * shape.d + c];
              total += std::exp(dot / 8.0 - lse);
              top = std::max(top, dot / 8.0);
            }
            EXPECT_NEAR(total, 1.0, 1e-11) << "range " << range << ", causal " << causal << ", row " << i;
            EXPECT_GE(lse, top);  // between the largest score and it plus ln(keys)
            EXPECT_LE(lse, top + std::log(static_cast<double>(shape.skv)));
            largest = std::max(largest, top);
          }
      if (range > 1.0) {
        EXPECT_GT(largest, 709.0) << "the large inputs give scores past exp's range";
      }
    }
  }
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
      const auto grouped_outputs = attention_forward_float64(q, k, v, shape);
      const auto repeated_outputs = attention_forward_float64(q, k_full, v_full, ungrouped);
      EXPECT_EQ(grouped_outputs.lse, repeated_outputs.lse) << "group " << group << ", causal " << causal;
      const auto& grouped = grouped_outputs.o;
      const auto& repeated = repeated_outputs.o;
      ASSERT_EQ(grouped.size(), repeated.size());
      for (std::size_t i = 0; i < grouped.size(); ++i)
        ASSERT_EQ(grouped[i], repeated[i]) << "group " << group << ", causal " << causal << ", element " << i;
      // Different heads of one group see the same keys, not the same output (their queries differ).
      EXPECT_NE(grouped[0], grouped[static_cast<std::size_t>(shape.s * shape.d)]);
    }
  }
}

}  // namespace attention_reference_test
}  // namespace evotune::test
