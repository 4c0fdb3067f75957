// The host decode reference (decode_reference.hpp) that the decode GPU tests trust: where decode is plain
// attention (one head, every key of a full cache, Sq = Skv) it agrees with the shared attention reference;
// a paged cache gives what the same keys give contiguous; grouped heads read their KV head; empty sequences
// and, causal, queries that see no key are 0.
#include "support/decode_reference.hpp"

#include <gtest/gtest.h>

#include <numeric>
#include <random>

#include "support/attention_reference.hpp"
#include "support/random_values.hpp"

namespace evotune::test {
namespace decode_reference_test {

TEST(DecodeReference, IsAttentionWhenTheQueriesAreTheWholeCache) {
  for (const bool causal : {false, true}) {
    DecodeShape s;
    s.b = 2, s.hkv = 1, s.g = 1, s.sq = 9, s.skv = 9, s.d = 16, s.causal = causal;
    std::mt19937_64 rng(3);
    const auto q = random_values(s.b * s.sq * s.d, rng), k = random_values(s.b * s.skv * s.d, rng),
               v = random_values(s.b * s.skv * s.d, rng);
    const auto decode = decode_attention_float64(q, k, v, {9, 9}, {}, s);
    // One head per sequence: [b, 1, s, d] and [b, s, 1, d] are the same memory.
    const auto plain = attention_float64(q, k, v, s.b, s.sq, s.d, causal);
    ASSERT_EQ(decode.size(), plain.size());
    for (std::size_t i = 0; i < plain.size(); ++i) EXPECT_NEAR(decode[i], plain[i], 1e-12) << i;
  }
}

TEST(DecodeReference, PagedIsContiguousThroughTheTable) {
  DecodeShape s;
  s.b = 3, s.hkv = 2, s.g = 4, s.sq = 3, s.skv = 37, s.d = 8, s.page = 4;
  std::mt19937_64 rng(5);
  const auto q = random_values(s.b * s.hq() * s.sq * s.d, rng);
  const auto k = random_values(s.b * s.skv * s.hkv * s.d, rng), v = random_values(k.size(), rng);
  const std::vector<int> lengths{37, 2, 21};
  const auto contiguous = decode_attention_float64(q, k, v, lengths, {}, s);

  // The same keys scattered over a shuffled pool of pages.
  const std::int64_t row = s.hkv * s.d;
  std::vector<int> table(static_cast<std::size_t>(s.b * s.max_pages()));
  std::iota(table.begin(), table.end(), 0);
  std::shuffle(table.begin(), table.end(), rng);
  std::vector<double> k_pages(table.size() * s.page * row), v_pages(k_pages.size());
  for (std::int64_t b = 0; b < s.b; ++b)
    for (std::int64_t j = 0; j < s.skv; ++j)
      for (std::int64_t c = 0; c < row; ++c) {
        const std::int64_t at = (table[b * s.max_pages() + j / s.page] * s.page + j % s.page) * row + c;
        k_pages[at] = k[(b * s.skv + j) * row + c];
        v_pages[at] = v[(b * s.skv + j) * row + c];
      }
  DecodeShape paged = s;
  paged.paged = true;
  EXPECT_EQ(decode_attention_float64(q, k_pages, v_pages, lengths, table, paged), contiguous);
}

TEST(DecodeReference, GroupedHeadsReadTheirKvHead) {
  DecodeShape s;
  s.b = 1, s.hkv = 2, s.g = 3, s.sq = 1, s.skv = 5, s.d = 4, s.causal = false;
  const std::int64_t hq = s.hq();
  // Every query head asks the same question; V is h + 1 in every column of KV head h.
  std::vector<double> q(hq * s.d, 0.5), k(s.skv * s.hkv * s.d, 0.25), v(k.size());
  for (std::int64_t j = 0; j < s.skv; ++j)
    for (std::int64_t h = 0; h < s.hkv; ++h)
      for (std::int64_t c = 0; c < s.d; ++c) v[(j * s.hkv + h) * s.d + c] = static_cast<double>(h + 1);
  const auto out = decode_attention_float64(q, k, v, {5}, {}, s);
  for (std::int64_t head = 0; head < hq; ++head)
    for (std::int64_t c = 0; c < s.d; ++c)
      EXPECT_NEAR(out[head * s.d + c], static_cast<double>(head / s.g + 1), 1e-12) << head;
}

TEST(DecodeReference, RowsThatSeeNoKeyAreZero) {
  DecodeShape s;
  s.b = 2, s.hkv = 1, s.g = 2, s.sq = 4, s.skv = 6, s.d = 4, s.causal = true;
  std::mt19937_64 rng(7);
  const auto q = random_values(s.b * s.hq() * s.sq * s.d, rng);
  const auto k = random_values(s.b * s.skv * s.d, rng), v = random_values(k.size(), rng);
  // Sequence 0 is empty; sequence 1 has 2 keys: queries 0 and 1 (positions -2 and -1) see none, query 2
  // sees key 0, query 3 keys 0 and 1.
  const auto out = decode_attention_float64(q, k, v, {0, 2}, {}, s);
  for (std::int64_t head = 0; head < s.hq(); ++head)
    for (std::int64_t i = 0; i < s.sq; ++i)
      for (std::int64_t c = 0; c < s.d; ++c) {
        EXPECT_EQ(out[((0 * s.hq() + head) * s.sq + i) * s.d + c], 0.0);
        const double one = out[((1 * s.hq() + head) * s.sq + i) * s.d + c];
        if (i < 2) {
          EXPECT_EQ(one, 0.0);
        } else if (i == 2) {
          EXPECT_NEAR(one, v[(1 * s.skv + 0) * s.d + c], 1e-12) << "one key: its value";
        }
      }
}

}  // namespace decode_reference_test
}  // namespace evotune::test
