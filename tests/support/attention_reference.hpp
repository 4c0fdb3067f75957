// The float64 attention reference every GPU test and harness checks against (tests/gpu/attention_*):
// softmax(Q K^T / sqrt(D)) V and the rows' log-sum-exps, with grouped K/V heads and key lengths of their own,
// written once. Plain C++, so that nvcc builds it into the harnesses too.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace evotune::test {

// Q, O: [batch][heads][s][d]; K, V: [batch][kv_heads][skv][d] (heads a multiple of kv_heads: query head h
// reads K/V head h / (heads / kv_heads), grouped-query attention). Causal is aligned to the bottom right, as
// SDPA's and FlashAttention's: query i sees keys j <= i + skv - s.
struct AttentionShape {
  std::int64_t batch = 1, heads = 1, kv_heads = 1, s = 1, skv = 1, d = 64;
  bool causal = false;
};

// O [batch][heads][s][d] and each query row's log-sum-exp of its scaled scores, LSE [batch][heads][s]: ln
// sum_j e^(q_i . k_j / sqrt(d)) over the keys the row sees (natural log), what a backward pass recomputes P
// from.
struct AttentionOutputs {
  std::vector<double> o, lse;
};

// The inputs are the 16-bit values the GPU reads, converted to double. A query row that sees no key (causal,
// s > skv) has O = 0 and LSE = 0.
inline AttentionOutputs attention_forward_float64(const std::vector<double>& q, const std::vector<double>& k,
                                                  const std::vector<double>& v, const AttentionShape& shape) {
  const std::int64_t s = shape.s, skv = shape.skv, d = shape.d, group = shape.heads / shape.kv_heads;
  const double scale = 1.0 / std::sqrt(static_cast<double>(d));
  AttentionOutputs out{std::vector<double>(q.size()),
                       std::vector<double>(static_cast<std::size_t>(shape.batch * shape.heads * s))};
  std::vector<double> p(static_cast<std::size_t>(skv));
  for (std::int64_t b = 0; b < shape.batch; ++b)
    for (std::int64_t h = 0; h < shape.heads; ++h) {
      const std::int64_t row0 = (b * shape.heads + h) * s;
      const std::int64_t base = row0 * d;
      const std::int64_t kv_base = (b * shape.kv_heads + h / group) * skv * d;
      for (std::int64_t i = 0; i < s; ++i) {
        double row_max = -INFINITY;
        for (std::int64_t j = 0; j < skv; ++j) {
          double dot = 0;
          for (std::int64_t c = 0; c < d; ++c) dot += q[base + i * d + c] * k[kv_base + j * d + c];
          p[j] = (shape.causal && j > i + skv - s) ? -INFINITY : dot * scale;
          row_max = std::max(row_max, p[j]);
        }
        if (row_max == -INFINITY) {  // no key
          for (std::int64_t c = 0; c < d; ++c) out.o[base + i * d + c] = 0;
          out.lse[row0 + i] = 0;
          continue;
        }
        double sum = 0;
        for (std::int64_t j = 0; j < skv; ++j) sum += p[j] = std::exp(p[j] - row_max);
        out.lse[row0 + i] = row_max + std::log(sum);
        for (std::int64_t c = 0; c < d; ++c) {
          double acc = 0;
          for (std::int64_t j = 0; j < skv; ++j) acc += p[j] * v[kv_base + j * d + c];
          out.o[base + i * d + c] = acc / sum;
        }
      }
    }
  return out;
}

// O alone.
inline std::vector<double> attention_float64(const std::vector<double>& q, const std::vector<double>& k,
                                             const std::vector<double>& v, const AttentionShape& shape) {
  return attention_forward_float64(q, k, v, shape).o;
}

// `heads` (B * H) heads of `s` rows of `d` values each, Q, K, V alike; causal: query i sees keys 0..i.
inline std::vector<double> attention_float64(const std::vector<double>& q, const std::vector<double>& k,
                                             const std::vector<double>& v, std::int64_t heads, std::int64_t s,
                                             std::int64_t d, bool causal) {
  return attention_float64(q, k, v, AttentionShape{1, heads, heads, s, s, d, causal});
}

// How far a GPU's output is from the reference: the largest absolute difference and the relative L2 error
// over the finite outputs, and how many outputs are not finite.
struct AttentionError {
  double max_abs = 0;
  double rel_l2 = 0;
  long long non_finite = 0;
};

inline AttentionError attention_error(const std::vector<double>& out, const std::vector<double>& expected) {
  AttentionError error;
  double diff2 = 0, ref2 = 0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (!std::isfinite(out[i])) {
      ++error.non_finite;
      continue;
    }
    const double diff = out[i] - expected[i];
    error.max_abs = std::max(error.max_abs, std::fabs(diff));
    diff2 += diff * diff;
    ref2 += expected[i] * expected[i];
  }
  // An all-zero reference (a single key's dQ and dK are exactly 0) is matched only by zeros.
  error.rel_l2 = ref2 > 0 ? std::sqrt(diff2 / ref2) : (diff2 > 0 ? INFINITY : 0.0);
  return error;
}

// The error of the output `o` against the reference of `q`, `k`, `v`: buffers of one 16-bit type that
// `to_double` converts (the harnesses' `half`, which plain C++ does not know).
template <class T, class ToDouble>
AttentionError attention_check(const std::vector<T>& q, const std::vector<T>& k, const std::vector<T>& v,
                               const std::vector<T>& o, const AttentionShape& shape, ToDouble to_double) {
  const auto doubles = [&](const std::vector<T>& values) {
    std::vector<double> out(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) out[i] = to_double(values[i]);
    return out;
  };
  return attention_error(doubles(o), attention_float64(doubles(q), doubles(k), doubles(v), shape));
}
template <class T, class ToDouble>
AttentionError attention_check(const std::vector<T>& q, const std::vector<T>& k, const std::vector<T>& v,
                               const std::vector<T>& o, std::int64_t heads, std::int64_t s, std::int64_t d,
                               bool causal, ToDouble to_double) {
  return attention_check(q, k, v, o, AttentionShape{1, heads, heads, s, s, d, causal}, to_double);
}

}  // namespace evotune::test
