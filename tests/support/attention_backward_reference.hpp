// The float64 attention backward every backward test checks against (tests/gpu/attention_bwd_*): dQ, dK, dV
// of O = softmax(Q K^T / sqrt(D)) V from Q, K, V, O, dO and the log-sum-exps, with grouped K/V heads and key
// lengths of their own, and the forward that gives O and the log-sum-exps. Written once; plain C++.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "support/attention_reference.hpp"

namespace evotune::test {

// The forward that gives O and the log-sum-exps the backward takes is attention_reference.hpp's
// attention_forward_float64 (AttentionOutputs: a row that sees no key has O 0 and LSE 0).
using AttentionForward = AttentionOutputs;

// dQ [batch][heads][s][d], dK and dV [batch][kv_heads][skv][d].
struct AttentionGradients {
  std::vector<double> dq;
  std::vector<double> dk;
  std::vector<double> dv;
};

// The backward as a function of its inputs, whatever O and LSE hold (the GPU reference's definition):
//   P_ij = exp(scale q_i . k_j - LSE_i) where query i sees key j (causal: j <= i + skv - s), else 0
//   Dsum_i = dO_i . O_i;  dS_ij = P_ij (dO_i . v_j - Dsum_i)
//   dQ_i = scale sum_j dS_ij k_j;  dK_j = scale sum_{h, i} dS_ij q_i;  dV_j = sum_{h, i} P_ij dO_i
// with h over the query heads of the key's group and scale = 1 / sqrt(d). When O and LSE are the forward's,
// these are the gradients of sum(dO * O) with respect to Q, K and V.
inline AttentionGradients attention_backward_float64(
    const std::vector<double>& q, const std::vector<double>& k, const std::vector<double>& v,
    const std::vector<double>& o, const std::vector<double>& d_o, const std::vector<double>& lse,
    const AttentionShape& shape) {
  const std::int64_t s = shape.s, skv = shape.skv, d = shape.d, group = shape.heads / shape.kv_heads;
  const double scale = 1.0 / std::sqrt(static_cast<double>(d));
  AttentionGradients out{std::vector<double>(q.size(), 0.0), std::vector<double>(k.size(), 0.0),
                         std::vector<double>(v.size(), 0.0)};
  for (std::int64_t b = 0; b < shape.batch; ++b)
    for (std::int64_t h = 0; h < shape.heads; ++h) {
      const std::int64_t base = (b * shape.heads + h) * s * d;
      const std::int64_t kv_base = (b * shape.kv_heads + h / group) * skv * d;
      for (std::int64_t i = 0; i < s; ++i) {
        const double* q_i = &q[base + i * d];
        const double* do_i = &d_o[base + i * d];
        double dsum = 0;
        for (std::int64_t c = 0; c < d; ++c) dsum += do_i[c] * o[base + i * d + c];
        const double row_lse = lse[(b * shape.heads + h) * s + i];
        for (std::int64_t j = 0; j < skv; ++j) {
          if (shape.causal && j > i + skv - s) continue;
          const double* k_j = &k[kv_base + j * d];
          const double* v_j = &v[kv_base + j * d];
          double dot = 0, dp = 0;
          for (std::int64_t c = 0; c < d; ++c) {
            dot += q_i[c] * k_j[c];
            dp += do_i[c] * v_j[c];
          }
          const double p = std::exp(dot * scale - row_lse);
          const double ds = p * (dp - dsum);
          for (std::int64_t c = 0; c < d; ++c) {
            out.dq[base + i * d + c] += scale * ds * k_j[c];
            out.dk[kv_base + j * d + c] += scale * ds * q_i[c];
            out.dv[kv_base + j * d + c] += p * do_i[c];
          }
        }
      }
    }
  return out;
}

}  // namespace evotune::test
