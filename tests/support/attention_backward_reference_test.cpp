// The float64 attention backward (attention_backward_reference.hpp): tiny cases checked by hand, the function
// of its inputs when O and LSE are not the forward's, rows that see no key, grouped heads against repeated
// K/V, and the gradients of sum(dO * attention(Q, K, V)) against central finite differences of the forward of
// attention_reference.hpp (grouped heads g = 1 and 4, causal with fewer and with more queries than keys).
#include "support/attention_backward_reference.hpp"

#include <gtest/gtest.h>

#include <random>

#include "support/random_values.hpp"

namespace evotune::test {
namespace attention_backward_reference_test {

void expect_near(const std::vector<double>& got, const std::vector<double>& expected, double tolerance,
                 const char* what) {
  ASSERT_EQ(got.size(), expected.size()) << what;
  for (std::size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], expected[i], tolerance) << what << " " << i;
}

// One query, two keys, d = 1 (scale 1), equal scores: P = (1/2, 1/2), O = (v0 + v1) / 2, LSE = log 2. With
// v = (1, 3) and dO = 1: Dsum = 2, dP = (1, 3), dS = (-1/2, 1/2), dV = P dO = (1/2, 1/2).
TEST(AttentionBackwardReference, TwoKeysOfEqualScore) {
  const AttentionShape shape{1, 1, 1, 1, 2, 1, false};
  const std::vector<double> v{1, 3}, d_o{1};
  {  // q = 0, k = (1, -1): dQ = dS . k = -1, dK = dS q = 0
    const std::vector<double> q{0}, k{1, -1};
    const AttentionForward forward = attention_forward_float64(q, k, v, shape);
    expect_near(forward.o, {2}, 1e-15, "O");
    expect_near(forward.lse, {std::log(2.0)}, 1e-15, "LSE");
    const auto grads = attention_backward_float64(q, k, v, forward.o, d_o, forward.lse, shape);
    expect_near(grads.dq, {-1}, 1e-15, "dQ");
    expect_near(grads.dk, {0, 0}, 1e-15, "dK");
    expect_near(grads.dv, {0.5, 0.5}, 1e-15, "dV");
  }
  {  // q = 1, k = (0, 0): dQ = 0, dK = dS q = (-1/2, 1/2)
    const std::vector<double> q{1}, k{0, 0};
    const AttentionForward forward = attention_forward_float64(q, k, v, shape);
    const auto grads = attention_backward_float64(q, k, v, forward.o, d_o, forward.lse, shape);
    expect_near(grads.dq, {0}, 1e-15, "dQ");
    expect_near(grads.dk, {-0.5, 0.5}, 1e-15, "dK");
    expect_near(grads.dv, {0.5, 0.5}, 1e-15, "dV");
  }
}

// With O = 0 and LSE = 0 (not the forward's): P = exp(0) = 1 for both keys, Dsum = 0, dS = dP = (1, 3): dQ =
// 1 - 3 = -2, dK = 0 (q = 0), dV = (1, 1).
TEST(AttentionBackwardReference, IsAFunctionOfItsInputs) {
  const AttentionShape shape{1, 1, 1, 1, 2, 1, false};
  const auto grads = attention_backward_float64({0}, {1, -1}, {1, 3}, {0}, {1}, {0}, shape);
  expect_near(grads.dq, {-2}, 1e-15, "dQ");
  expect_near(grads.dk, {0, 0}, 1e-15, "dK");
  expect_near(grads.dv, {1, 1}, 1e-15, "dV");
}

// Causal with s = 4, skv = 2 (bottom right): queries 0 and 1 see no key. Their dQ is 0 and they add nothing
// to dK and dV, whatever their q and dO.
TEST(AttentionBackwardReference, RowsThatSeeNoKeyContributeNothing) {
  std::mt19937_64 rng(3);
  const AttentionShape shape{1, 1, 1, 4, 2, 4, true};
  auto q = random_values(16, rng), d_o = random_values(16, rng);
  const auto k = random_values(8, rng), v = random_values(8, rng);
  const AttentionForward forward = attention_forward_float64(q, k, v, shape);
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(forward.o[i], 0.0);
    EXPECT_EQ(forward.lse[i / 4], 0.0);
  }
  const auto grads = attention_backward_float64(q, k, v, forward.o, d_o, forward.lse, shape);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(grads.dq[i], 0.0) << i;
  for (int i = 0; i < 8; ++i) {  // the first two rows changed: dK and dV stay
    q[i] = 7.0;
    d_o[i] = -5.0;
  }
  const auto changed = attention_backward_float64(q, k, v, forward.o, d_o, forward.lse, shape);
  EXPECT_EQ(changed.dk, grads.dk);
  EXPECT_EQ(changed.dv, grads.dv);
  EXPECT_NE(grads.dk, std::vector<double>(8, 0.0));
}

// Grouped heads: the same as every query head having its own copy of its group's K/V head, with dK and dV
// summed over the heads of the group.
TEST(AttentionBackwardReference, GroupedHeadsSumOverTheGroup) {
  for (const std::int64_t group : {1, 4, 8})
    for (const bool causal : {false, true}) {
      std::mt19937_64 rng(static_cast<std::uint64_t>(group) + 40);
      const AttentionShape shape{2, 2 * group, 2, 5, 7, 8, causal};
      const std::int64_t rows = shape.batch * shape.heads * shape.s;
      const auto q = random_values(rows * shape.d, rng), d_o = random_values(rows * shape.d, rng);
      const auto k = random_values(shape.batch * shape.kv_heads * shape.skv * shape.d, rng);
      const auto v = random_values(static_cast<std::int64_t>(k.size()), rng);
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
      const AttentionForward forward = attention_forward_float64(q, k, v, shape);
      const auto grouped = attention_backward_float64(q, k, v, forward.o, d_o, forward.lse, shape);
      const auto repeated =
          attention_backward_float64(q, k_full, v_full, forward.o, d_o, forward.lse, ungrouped);
      expect_near(grouped.dq, repeated.dq, 1e-13, "dQ");
      std::vector<double> dk_sum(k.size(), 0.0), dv_sum(v.size(), 0.0);
      for (std::int64_t b = 0; b < shape.batch; ++b)
        for (std::int64_t h = 0; h < shape.heads; ++h)
          for (std::int64_t e = 0; e < row; ++e) {
            dk_sum[(b * shape.kv_heads + h / group) * row + e] +=
                repeated.dk[(b * shape.heads + h) * row + e];
            dv_sum[(b * shape.kv_heads + h / group) * row + e] +=
                repeated.dv[(b * shape.heads + h) * row + e];
          }
      expect_near(grouped.dk, dk_sum, 1e-13, "dK");
      expect_near(grouped.dv, dv_sum, 1e-13, "dV");
    }
}

// d/dx sum(dO * attention(Q, K, V)) by central differences of the forward of attention_reference.hpp (its own
// code, not the forward above), against the backward given that forward's O and LSE.
struct FiniteDifferenceCase {
  AttentionShape shape;
};

class AttentionBackwardFiniteDifferences : public ::testing::TestWithParam<FiniteDifferenceCase> {};

TEST_P(AttentionBackwardFiniteDifferences, MatchTheBackward) {
  const AttentionShape shape = GetParam().shape;
  std::mt19937_64 rng(static_cast<std::uint64_t>(shape.heads * 100 + shape.s * 10 + shape.skv));
  const std::int64_t q_count = shape.batch * shape.heads * shape.s * shape.d;
  const std::int64_t kv_count = shape.batch * shape.kv_heads * shape.skv * shape.d;
  std::vector<double> q = random_values(q_count, rng), k = random_values(kv_count, rng),
                      v = random_values(kv_count, rng);
  const std::vector<double> d_o = random_values(q_count, rng);
  const auto loss = [&] {
    const std::vector<double> out = attention_float64(q, k, v, shape);
    double total = 0;
    for (std::size_t i = 0; i < out.size(); ++i) total += d_o[i] * out[i];
    return total;
  };
  const AttentionForward forward = attention_forward_float64(q, k, v, shape);
  const AttentionGradients grads = attention_backward_float64(q, k, v, forward.o, d_o, forward.lse, shape);
  const double h = 1e-5;
  const auto check = [&](std::vector<double>& x, const std::vector<double>& gradient, const char* what) {
    for (std::size_t i = 0; i < x.size(); ++i) {
      const double saved = x[i];
      x[i] = saved + h;
      const double up = loss();
      x[i] = saved - h;
      const double down = loss();
      x[i] = saved;
      EXPECT_NEAR(gradient[i], (up - down) / (2 * h), 1e-8) << what << " " << i;
    }
  };
  check(q, grads.dq, "dQ");
  check(k, grads.dk, "dK");
  check(v, grads.dv, "dV");
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, AttentionBackwardFiniteDifferences,
    ::testing::Values(FiniteDifferenceCase{{1, 2, 2, 3, 5, 4, false}},  // g = 1
                      FiniteDifferenceCase{{2, 4, 1, 3, 5, 4, false}},  // g = 4, two batches
                      FiniteDifferenceCase{{1, 2, 2, 3, 5, 4, true}},   // causal, fewer queries than keys
                      FiniteDifferenceCase{
                          {1, 4, 1, 5, 3, 4, true}},  // causal, more: rows 0 and 1 see no key
                      FiniteDifferenceCase{{1, 4, 1, 3, 6, 8, true}},   // causal g = 4
                      FiniteDifferenceCase{{1, 2, 1, 4, 4, 4, true}}),  // causal, equal lengths
    [](const ::testing::TestParamInfo<FiniteDifferenceCase>& info) {
      const AttentionShape& s = info.param.shape;
      return "b" + std::to_string(s.batch) + "_g" + std::to_string(s.heads / s.kv_heads) + "_s" +
             std::to_string(s.s) + "_skv" + std::to_string(s.skv) + (s.causal ? "_causal" : "");
    });

}  // namespace attention_backward_reference_test
}  // namespace evotune::test
