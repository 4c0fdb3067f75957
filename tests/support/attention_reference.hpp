// The float64 attention reference every GPU test and harness checks against (tests/gpu/attention_*):
// softmax(Q K^T / sqrt(D)) V, written once. Plain C++, so that nvcc builds it into the harnesses too.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace evotune::test {

// `heads` (B * H) heads of `s` rows of `d` values each, row-major; causal: query i sees keys 0..i. The inputs
// are the 16-bit values the GPU reads, converted to double.
inline std::vector<double> attention_float64(const std::vector<double>& q, const std::vector<double>& k,
                                             const std::vector<double>& v, std::int64_t heads, std::int64_t s,
                                             std::int64_t d, bool causal) {
  const double scale = 1.0 / std::sqrt(static_cast<double>(d));
  std::vector<double> out(q.size()), p(static_cast<std::size_t>(s));
  for (std::int64_t h = 0; h < heads; ++h) {
    const std::int64_t base = h * s * d;
    for (std::int64_t i = 0; i < s; ++i) {
      double row_max = -INFINITY;
      for (std::int64_t j = 0; j < s; ++j) {
        double dot = 0;
        for (std::int64_t c = 0; c < d; ++c) dot += q[base + i * d + c] * k[base + j * d + c];
        p[j] = (causal && j > i) ? -INFINITY : dot * scale;
        row_max = std::max(row_max, p[j]);
      }
      double sum = 0;
      for (std::int64_t j = 0; j < s; ++j) sum += p[j] = std::exp(p[j] - row_max);
      for (std::int64_t c = 0; c < d; ++c) {
        double acc = 0;
        for (std::int64_t j = 0; j < s; ++j) acc += p[j] * v[base + j * d + c];
        out[base + i * d + c] = acc / sum;
      }
    }
  }
  return out;
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
  error.rel_l2 = std::sqrt(diff2 / ref2);
  return error;
}

// The error of the output `o` against the reference of `q`, `k`, `v`: buffers of one 16-bit type that
// `to_double` converts (the harnesses' `half`, which plain C++ does not know).
template <class T, class ToDouble>
AttentionError attention_check(const std::vector<T>& q, const std::vector<T>& k, const std::vector<T>& v,
                               const std::vector<T>& o, std::int64_t heads, std::int64_t s, std::int64_t d,
                               bool causal, ToDouble to_double) {
  const auto doubles = [&](const std::vector<T>& values) {
    std::vector<double> out(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) out[i] = to_double(values[i]);
    return out;
  };
  const std::vector<double> expected =
      attention_float64(doubles(q), doubles(k), doubles(v), heads, s, d, causal);
  return attention_error(doubles(o), expected);
}

}  // namespace evotune::test
