// The float64 decode-attention reference (a few queries against a contiguous or paged KV cache) that the GPU
// tests check against (tests/gpu/decode_*): written once, the plain way. Plain C++.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace evotune::test {

// The problem of search_spaces/decode_attn.json: q, o [b, g * hkv, sq, d]; k, v [b, skv, hkv, d] or, paged,
// [pages, page, hkv, d] through block_table [b, cdiv(skv, page)]; seqlens [b] clamped to [0, skv].
struct DecodeShape {
  std::int64_t b = 1, hkv = 1, g = 1, sq = 1, skv = 1, d = 128;
  bool causal = true;
  bool paged = false;
  std::int64_t page = 16;

  std::int64_t hq() const { return g * hkv; }
  std::int64_t max_pages() const { return (skv + page - 1) / page; }
};

// Query i of sequence b (cache length L) sees keys j < L - sq + 1 + i (causal) or j < L; none: 0.
inline std::vector<double> decode_attention_float64(
    const std::vector<double>& q, const std::vector<double>& k, const std::vector<double>& v,
    const std::vector<int>& seqlens, const std::vector<int>& block_table, const DecodeShape& s) {
  const double scale = 1.0 / std::sqrt(static_cast<double>(s.d));
  std::vector<double> out(q.size(), 0.0);
  std::vector<double> p(static_cast<std::size_t>(s.skv));
  for (std::int64_t b = 0; b < s.b; ++b) {
    const std::int64_t length = std::clamp<std::int64_t>(seqlens[b], 0, s.skv);
    // Where key j's row of hkv * d values starts.
    const auto key_row = [&](std::int64_t j) {
      const std::int64_t row =
          s.paged ? block_table[b * s.max_pages() + j / s.page] * s.page + j % s.page : b * s.skv + j;
      return row * s.hkv * s.d;
    };
    for (std::int64_t head = 0; head < s.hq(); ++head) {
      const std::int64_t h = head / s.g;
      for (std::int64_t i = 0; i < s.sq; ++i) {
        const std::int64_t row = (b * s.hq() + head) * s.sq + i;
        const std::int64_t limit = s.causal ? length - s.sq + 1 + i : length;
        if (limit <= 0) continue;
        double row_max = -INFINITY;
        for (std::int64_t j = 0; j < limit; ++j) {
          double dot = 0;
          for (std::int64_t c = 0; c < s.d; ++c) dot += q[row * s.d + c] * k[key_row(j) + h * s.d + c];
          p[j] = dot * scale;
          row_max = std::max(row_max, p[j]);
        }
        double sum = 0;
        for (std::int64_t j = 0; j < limit; ++j) sum += p[j] = std::exp(p[j] - row_max);
        for (std::int64_t c = 0; c < s.d; ++c) {
          double acc = 0;
          for (std::int64_t j = 0; j < limit; ++j) acc += p[j] * v[key_row(j) + h * s.d + c];
          out[row * s.d + c] = acc / sum;
        }
      }
    }
  }
  return out;
}

}  // namespace evotune::test
